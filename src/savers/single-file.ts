/**
 * A `file:` URI (or bare path) naming a single file: a read-only, one-thread source of any format (a yoagent
 * conversation.json, a Swarmer agent_*.pkl …). Its thread id is the document's `threadId`, else the file's stem.
 */
import { InvalidUtf8Error, readUtf8File } from "../base/utf8.js";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { inputError, storeError } from "../base/errors.js";
import { compareIds } from "./common.js";
import { ioError, threadIdIn } from "./fs-common.js";
import { DEFAULT_NAMESPACE, type ListOptions, type Saver } from "./types.js";

export const SINGLE_FILE_SAVER = "single-file";

export async function createSingleFileSaver(path: string, uri: string): Promise<Saver> {
  let text: string;
  try {
    text = readUtf8File(path);
  } catch (e) {
    if (e instanceof InvalidUtf8Error) throw inputError("encoding", e.message, { file: path }, e);
    throw ioError(e, "cannot read", path);
  }
  const id = threadIdIn(text) ?? basename(path).replace(/\.[^.]*$/, "");
  const readOnly = () => {
    throw storeError(
      "read-only",
      `${path} is a single file: it can be read as one thread but not written (name a folder to write)`,
      { file: path },
    );
  };
  const size = Buffer.byteLength(text);
  const mtime = (await stat(path)).mtime.toISOString();
  const mine = (t: string, ns?: string) => t === id && (ns ?? DEFAULT_NAMESPACE) === DEFAULT_NAMESPACE;
  return {
    uri,
    load: async (t, ns) => (mine(t, ns) ? text : undefined),
    loadMany: async (keys) => keys.map((k) => (mine(k.threadId, k.namespace) ? text : undefined)),
    save: async () => readOnly(),
    delete: async () => readOnly(),
    exists: async (t, ns) => mine(t, ns),
    async *list(options: ListOptions = {}) {
      if ((options.namespace ?? DEFAULT_NAMESPACE) !== DEFAULT_NAMESPACE) return;
      if (options.after !== undefined && compareIds(id, options.after) <= 0) return;
      if (options.limit === 0) return;
      yield { namespace: DEFAULT_NAMESPACE, threadId: id, bytes: size, updatedAt: mtime };
    },
    async *scan(options = {}) {
      if ((options.namespace ?? DEFAULT_NAMESPACE) === DEFAULT_NAMESPACE)
        yield [{ namespace: DEFAULT_NAMESPACE, threadId: id, text }];
    },
    count: async (ns) => ((ns ?? DEFAULT_NAMESPACE) === DEFAULT_NAMESPACE ? 1 : 0),
    namespaces: async () => [DEFAULT_NAMESPACE],
    saveMany: async () => readOnly(),
    close: async () => {},
  };
}

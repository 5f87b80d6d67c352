/**
 * `file:<dir>` — deep-agent's FileSaver layout: `<dir>/<threadId with [^a-zA-Z0-9_-] → "_">.json`, written as
 * `JSON.stringify(checkpoint, null, 2)` with no trailing newline, so deep-agent reads what ckpt writes and the reverse.
 * Unlike deep-agent:
 * - two thread ids that sanitize to the same file name never share a file: saving the second is refused with an
 *   error naming both ids (a reversible encoding would break deep-agent's own `load(threadId)`, so we refuse);
 * - the real thread id is read from each document (`list` returns thread ids, not file stems);
 * - writes are atomic: temp file in the same folder, fsync, rename, fsync of the folder.
 * Namespaces other than "default" live in a sub-folder named after the sanitized namespace.
 * A `file:` URI naming a single file is a read-only, one-thread source: see single-file.ts.
 */
import { open, readdir, rename, stat, unlink, mkdir } from "node:fs/promises";
import type { Dir } from "node:fs";
import { closeSync, fstatSync, opendirSync, openSync, readFileSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { CkptError, ExitCode } from "../base/errors.js";
import { ioError, threadIdIn } from "./fs-common.js";
import { checkThreadId, compareIds, reformat } from "./common.js";
import { DEFAULT_NAMESPACE, type ListOptions, type Saver, type SaverRecord, type ThreadInfo } from "./types.js";

interface Entry {
  id: string;
  /** file name inside the namespace folder */
  name: string;
  size: number;
  mtimeMs: number;
}

export const sanitizeThreadId = (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, "_");
const MAX_NAME = 250;

/** One buffer for every head read: listing a large folder allocates nothing per file but the head string. */
const HEAD_BYTES = 1536;
const headBuf = Buffer.alloc(HEAD_BYTES);

/**
 * The first bytes of a file (FileSaver writes the thread id first), with its size and modification time (ms).
 * Synchronous on purpose: four syscalls per file, where the promise API pays a thread-pool round trip for each
 * (listing 10,000 files took ~4 s that way, ~0.1 s this way).
 */
function readHead(path: string): { head: string; size: number; mtimeMs: number } {
  const fd = openSync(path, "r");
  try {
    const bytesRead = readSync(fd, headBuf, 0, HEAD_BYTES, 0);
    const st = fstatSync(fd);
    return { head: headBuf.toString("utf8", 0, bytesRead), size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

/** Whether the file at `path` exists and holds thread `id`. */
function holds(path: string, id: string): boolean {
  try {
    return threadIdIn(readHead(path).head) === id;
  } catch {
    return false;
  }
}

export async function createFileSaver(location: string, uri: string, defaultNamespace = DEFAULT_NAMESPACE): Promise<Saver> {
  const st = await stat(location).catch(() => undefined);
  if (st?.isFile()) return (await import("./single-file.js")).createSingleFileSaver(location, uri);
  const dirOf = (ns?: string) => {
    const n = ns ?? defaultNamespace;
    return n === DEFAULT_NAMESPACE ? location : join(location, sanitizeThreadId(n));
  };
  const fileFor = (threadId: string, ns?: string) => {
    checkThreadId(threadId);
    const name = sanitizeThreadId(threadId) + ".json";
    if (Buffer.byteLength(name) > MAX_NAME) {
      throw new CkptError(ExitCode.STORE, "file-name-too-long", `thread id is too long for a file name (${Buffer.byteLength(name)} bytes; the limit is ${MAX_NAME})`, { file: join(dirOf(ns), name.slice(0, 40) + "…") });
    }
    return join(dirOf(ns), name);
  };

  /** Files whose name is not the sanitized form of the thread id they hold (found while listing): id → path. */
  const misplaced = new Map<string, string>();
  const misplacedKey = (id: string, ns?: string) => `${ns ?? defaultNamespace}\u0000${id}`;

  async function readDoc(path: string): Promise<string | undefined> {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw ioError(e, "cannot read", path);
    }
  }

  async function writeAtomic(path: string, text: string): Promise<void> {
    const dir = join(path, "..");
    await mkdir(dir, { recursive: true }).catch((e) => {
      throw ioError(e, "cannot create folder", dir);
    });
    const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      const fh = await open(tmp, "wx");
      try {
        await fh.writeFile(text);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, path);
      const d = await open(dir, "r");
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    } catch (e) {
      await unlink(tmp).catch(() => undefined);
      throw ioError(e, "cannot write", path);
    }
  }

  /** Refuse to put a second thread id into a file that holds another one. */
  async function checkCollision(path: string, threadId: string): Promise<void> {
    let got: { head: string } | undefined;
    try {
      got = readHead(path);
    } catch {
      return;
    }
    const other = threadIdIn(got.head);
    if (other !== undefined && other !== threadId) {
      throw new CkptError(
        ExitCode.STORE,
        "file-id-collision",
        `thread ids '${threadId}' and '${other}' both map to ${basename(path)} (FileSaver replaces every character outside [a-zA-Z0-9_-] with '_'): refusing to overwrite '${other}'`,
        { file: path },
      );
    }
  }

  async function save(threadId: string, text: string, namespace?: string): Promise<void> {
    const path = fileFor(threadId, namespace);
    await checkCollision(path, threadId);
    await writeAtomic(path, reformat(text, 2, `${uri}#${threadId}`));
  }

  /**
   * Every thread in a namespace folder, sorted by thread id. Kept small per entry (id, file name, size, mtime) since
   * the whole folder must be listed before the first id can be yielded in order.
   */
  async function entries(namespace?: string): Promise<Entry[]> {
    const dir = dirOf(namespace);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw ioError(e, "cannot list", dir);
    }
    const byId = new Map<string, Entry>();
    for (const n of names) {
      if (!n.endsWith(".json") || n.includes(".tmp-")) continue;
      let got: { head: string; size: number; mtimeMs: number };
      try {
        got = readHead(join(dir, n));
      } catch {
        continue; // removed meanwhile, or a folder named *.json
      }
      const id = threadIdIn(got.head) ?? n.slice(0, -5);
      const canonical = sanitizeThreadId(id) + ".json" === n;
      const seen = byId.get(id);
      // Two files claiming one thread: the one at deep-agent's own path wins (it is what FileSaver.load reads).
      if (seen && !canonical) continue;
      byId.set(id, { id, name: n, size: got.size, mtimeMs: got.mtimeMs });
      if (!canonical) misplaced.set(misplacedKey(id, namespace), join(dir, n));
      else misplaced.delete(misplacedKey(id, namespace));
    }
    return [...byId.values()].sort((a, b) => compareIds(a.id, b.id));
  }

  /** Whether a namespace folder holds at least one document (without reading them all). */
  async function hasDocuments(dir: string): Promise<boolean> {
    const names = await readdir(dir).catch(() => [] as string[]);
    return names.some((n) => n.endsWith(".json") && !n.includes(".tmp-"));
  }

  async function load(threadId: string, namespace?: string): Promise<string | undefined> {
    const path = fileFor(threadId, namespace);
    const text = await readDoc(path);
    const id = text === undefined ? undefined : threadIdIn(text);
    if (text !== undefined && (id === undefined || id === threadId)) return text;
    // Not at deep-agent's path (a renamed or hand-made file): found by its content while listing.
    const other = misplaced.get(misplacedKey(threadId, namespace));
    if (other) {
      const t = await readDoc(other);
      if (t !== undefined && threadIdIn(t) === threadId) return t;
    }
    return undefined; // missing, or the file holds another thread (collision)
  }

  return {
    uri,
    load,
    async loadMany(keys) {
      const out: Array<string | undefined> = [];
      for (const k of keys) out.push(await load(k.threadId, k.namespace));
      return out;
    },
    save,
    async delete(threadId, namespace) {
      const path = fileFor(threadId, namespace);
      const text = await readDoc(path);
      if (text === undefined || (threadIdIn(text) ?? threadId) !== threadId) return false;
      await unlink(path).catch((e) => {
        throw ioError(e, "cannot delete", path);
      });
      return true;
    },
    async exists(threadId, namespace) {
      return (await load(threadId, namespace)) !== undefined;
    },
    async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
      const namespace = options.namespace ?? defaultNamespace;
      let n = 0;
      for (const e of await entries(namespace)) {
        if (options.after !== undefined && compareIds(e.id, options.after) <= 0) continue;
        if (options.limit !== undefined && n++ >= options.limit) return;
        yield { namespace, threadId: e.id, bytes: e.size, updatedAt: new Date(e.mtimeMs).toISOString() };
      }
    },
    async *scan(options = {}) {
      const namespace = options.namespace ?? defaultNamespace;
      const size = Math.max(1, options.batchSize ?? 200);
      const dir = dirOf(namespace);
      let handle: Dir;
      try {
        handle = opendirSync(dir, { bufferSize: 256 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return;
        throw ioError(e, "cannot list", dir);
      }
      let batch: SaverRecord[] = [];
      const misplacedIds = new Set<string>();
      // One read per file, in directory order (streamed: memory bounded by the batch, not the folder).
      try {
        for (let d = handle.readSync(); d !== null; d = handle.readSync()) {
          const n = d.name;
          if (!n.endsWith(".json") || n.includes(".tmp-") || d.isDirectory()) continue;
          const path = join(dir, n);
          let text: string;
          try {
            text = readFileSync(path, "utf8"); // the one-call UTF-8 path: several times faster than Buffer + toString
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "EISDIR") continue;
            throw ioError(e, "cannot read", path);
          }
          // the thread id as `list` finds it: from the first bytes, else the file's stem
          const id = threadIdIn(text.slice(0, HEAD_BYTES)) ?? n.slice(0, -5);
          if (sanitizeThreadId(id) + ".json" !== n && holds(join(dir, sanitizeThreadId(id) + ".json"), id)) {
            continue; // a second file claiming a thread whose FileSaver file exists: that one wins, as in `list`
          }
          if (sanitizeThreadId(id) + ".json" !== n) {
            if (misplacedIds.has(id)) continue; // two misplaced files claiming one thread: the first wins, as in `list`
            misplacedIds.add(id);
          }
          batch.push({ namespace, threadId: id, text });
          if (batch.length >= size) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length) yield batch;
      } finally {
        handle.closeSync();
      }
    },
    async count(namespace) {
      const names = await readdir(dirOf(namespace)).catch(() => [] as string[]);
      return names.filter((n) => n.endsWith(".json") && !n.includes(".tmp-")).length;
    },
    async namespaces() {
      const out: string[] = [];
      if (await hasDocuments(location)) out.push(DEFAULT_NAMESPACE);
      const names = await readdir(location, { withFileTypes: true }).catch(() => []);
      for (const d of names) if (d.isDirectory() && (await hasDocuments(join(location, d.name)))) out.push(d.name);
      return out.sort(compareIds);
    },
    async saveMany(records: SaverRecord[]) {
      for (const r of records) await save(r.threadId, r.text, r.namespace);
    },
    async close() {},
  };
}

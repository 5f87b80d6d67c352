/** `memory:[name]` — the reference saver: a Map per name, shared within the process. */
import type { ListOptions, Saver, SaverFactory, SaverRecord, ThreadInfo } from "./types.js";
import { DEFAULT_NAMESPACE } from "./types.js";
import { checkThreadId, compareIds } from "./common.js";
import { inputError } from "../base/errors.js";

export const SAVER_NAME = "memory";

const stores = new Map<string, Map<string, Map<string, { text: string; updatedAt: string }>>>();

/** A memory store opened to read must have been written in this process (reading never creates one). */
export const createMemorySaver: SaverFactory = async ({
  location: name,
  uri,
  namespace: defaultNamespace = DEFAULT_NAMESPACE,
  readOnly,
}) => {
  let root = stores.get(name);
  if (!root && readOnly)
    throw inputError("missing-store", "no such memory store in this process (reading never creates a store)", {
      file: uri,
    });
  if (!root) stores.set(name, (root = new Map()));
  const ns = (n?: string) => root!.get(n ?? defaultNamespace) ?? new Map<string, { text: string; updatedAt: string }>();
  const nsForWrite = (n?: string) => {
    const key = n ?? defaultNamespace;
    let m = root!.get(key);
    if (!m) root!.set(key, (m = new Map()));
    return m;
  };
  const saver: Saver = {
    uri,
    async load(threadId, namespace) {
      return ns(namespace).get(threadId)?.text;
    },
    async loadMany(keys) {
      return keys.map((k) => root!.get(k.namespace)?.get(k.threadId)?.text);
    },
    async save(threadId, text, namespace) {
      checkThreadId(threadId);
      nsForWrite(namespace).set(threadId, { text, updatedAt: new Date().toISOString() });
    },
    async delete(threadId, namespace) {
      return ns(namespace).delete(threadId);
    },
    async exists(threadId, namespace) {
      return ns(namespace).has(threadId);
    },
    async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
      const namespace = options.namespace ?? defaultNamespace;
      const ids = [...ns(namespace).keys()]
        .filter((id) => options.after === undefined || compareIds(id, options.after) > 0)
        .sort(compareIds);
      let n = 0;
      for (const id of ids) {
        if (options.limit !== undefined && n++ >= options.limit) return;
        const r = ns(namespace).get(id);
        if (r) yield { namespace, threadId: id, bytes: Buffer.byteLength(r.text), updatedAt: r.updatedAt };
      }
    },
    async *scan(options = {}) {
      const namespace = options.namespace ?? defaultNamespace;
      const size = Math.max(1, options.batchSize ?? 200);
      let batch: SaverRecord[] = [];
      for (const [threadId, r] of ns(namespace)) {
        batch.push({ namespace, threadId, text: r.text });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },
    async count(namespace) {
      return ns(namespace).size;
    },
    async namespaces() {
      return [...root!.entries()]
        .filter(([, m]) => m.size > 0)
        .map(([k]) => k)
        .sort(compareIds);
    },
    async saveMany(records: SaverRecord[]) {
      for (const r of records) checkThreadId(r.threadId, r.namespace);
      for (const r of records)
        nsForWrite(r.namespace).set(r.threadId, { text: r.text, updatedAt: new Date().toISOString() });
    },
    async addMany(records: SaverRecord[]) {
      for (const r of records) checkThreadId(r.threadId, r.namespace);
      return records.map((r) => {
        const m = nsForWrite(r.namespace);
        if (m.has(r.threadId)) return false;
        m.set(r.threadId, { text: r.text, updatedAt: new Date().toISOString() });
        return true;
      });
    },
    async close() {},
  };
  return saver;
};

/** Forget every memory store (tests). */
export function resetMemorySavers(): void {
  stores.clear();
}

/**
 * The Mastra migration endpoints (core/migrate/pipeline.ts runs them): Mastra memory into a Mastra store (LibSQL ⇄
 * PostgreSQL, or within one kind) — every thread with all of its messages, then every resource with its working
 * memory — and the documents of any store into Mastra memory, each thread converted to a `mastra` thread through the
 * canonical model (what Mastra memory has no place for is reported lost; without `allowLossy` such a thread is
 * rejected), then the resources its threads name. A batch is written in one transaction and verified by reading its
 * rows back and comparing them value for value with what was written (content texts exactly; metadata as JSON
 * values; times as instants, since each backend spells them its own way). The target takes Mastra's own tables
 * (`setup`, as `@mastra/libsql` / `@mastra/pg` create them) when it has none. Rows that did not decode are rejected
 * and named; messages of no thread (Mastra never lists them) are counted and left.
 */
import { hexDigest } from "../../base/digest.js";
import { stringifyJson } from "../../base/json.js";
import { fmtInt } from "../../base/plural.js";
import { checkRecord } from "../../core/check.js";
import type { Item, MigrationEndpoint, Staged, TargetWriter } from "../../core/migrate/endpoint.js";
import { runMigration } from "../../core/migrate/pipeline.js";
import type { MigrateSummary, RunOptions } from "../../core/migrate/types.js";
import type { MastraDocument } from "../../formats/mastra.js";
import type { MastraMessageRow, MastraResourceRow, MastraStore, MastraThreadRow } from "../../savers/mastra/types.js";
import type { Saver, SaverRecord } from "../../savers/types.js";
import type { OpenedStore } from "../../savers/index.js";
import { usageError } from "../../base/errors.js";
import { type MigrationRoute, runOptions } from "../migrate-route.js";

/** What a Mastra migration moved, by table. */
export interface MastraRows {
  threads: number;
  messages: number;
  resources: number;
}

export type MastraMigrateSummary = MigrateSummary & { layout: "mastra"; rows: MastraRows };

/** A record of Mastra memory: a thread with its messages, or a resource with its working memory. */
type MastraRecord =
  | { table: "threads"; thread: MastraThreadRow; messages: MastraMessageRow[] }
  | { table: "resources"; resource: MastraResourceRow };

interface MastraItem extends Item {
  rec: MastraRecord;
  /** its comparable form (what Mastra reads of it, backend spellings aside) */
  form: string;
}

/** What the target holds under an item's id: its form and update time, or a message id another thread holds. */
interface Held {
  form: string;
  updatedAt?: string;
}

const instant = (s: string) => {
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : s;
};

/** A JSON value with its object keys sorted (PostgreSQL's jsonb keeps its own key order). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/** The comparable form of a thread record: what Mastra reads of it, backend spellings aside. */
export function threadForm(r: { thread: MastraThreadRow; messages: MastraMessageRow[] }): string {
  const t = r.thread;
  return stringifyJson([
    t.id,
    t.resourceId,
    t.title,
    sorted(t.metadata),
    instant(t.createdAt),
    instant(t.updatedAt),
    r.messages
      .map((m) => [m.id, m.threadId, m.role, m.type, instant(m.createdAt), m.resourceId, m.content])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  ]);
}

export function resourceForm(r: MastraResourceRow): string {
  return stringifyJson([r.id, r.workingMemory, sorted(r.metadata), instant(r.createdAt), instant(r.updatedAt)]);
}

const idOf = (r: MastraRecord) => (r.table === "threads" ? r.thread.id : r.resource.id);
const keyOf = (r: MastraRecord) => `${r.table}\u0000${idOf(r)}`;
const bytesOf = (r: MastraRecord) =>
  r.table === "threads"
    ? r.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0)
    : Buffer.byteLength(r.resource.workingMemory ?? "");
const formOf = (r: MastraRecord) => (r.table === "threads" ? threadForm(r) : resourceForm(r.resource));

/** A record as an item, or why Mastra cannot be given it faithfully (a column that did not decode). */
function staged(r: MastraRecord): Staged<MastraItem> {
  const id = idOf(r);
  const bad = (r.table === "threads" ? r.thread : r.resource).unreadable?.[0];
  if (bad)
    return {
      reject: `${r.table === "threads" ? "thread" : "resource"} '${id}': ${bad.column} does not decode (${bad.reason})`,
    };
  const form = formOf(r);
  return {
    ok: {
      namespace: r.table,
      threadId: id,
      key: keyOf(r),
      hash: hexDigest("sha256", form),
      bytes: bytesOf(r),
      rec: r,
      form,
    },
  };
}

/** The rows of one `mastra` document (formats/mastra.ts): its thread, its messages (contents as JSON text), its resource. */
export function rowsOfDocument(d: MastraDocument): {
  thread: MastraThreadRow;
  messages: MastraMessageRow[];
  resource?: MastraResourceRow;
} {
  const t = d.thread;
  const thread: MastraThreadRow = {
    id: t.id,
    resourceId: t.resourceId,
    title: t.title,
    metadata: t.metadata ?? null,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
  };
  const messages = d.messages.map((m) => ({
    id: m.id,
    threadId: t.id,
    content: JSON.stringify(m.content),
    role: m.role,
    type: m.type,
    createdAt: m.createdAt,
    resourceId: m.resourceId === undefined ? t.resourceId : m.resourceId,
  }));
  const r = d.resource;
  const resource = r
    ? {
        id: r.id,
        workingMemory: r.workingMemory,
        metadata: r.metadata ?? null,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
      }
    : undefined;
  return { thread, messages, ...(resource ? { resource } : {}) };
}

/** The Mastra target: what it holds, its one writer, its figures. */
class MastraTarget {
  had = false;
  s: MastraMigrateSummary | undefined;
  constructor(readonly store: MastraStore) {}

  async begin(s: MigrateSummary, dryRun: boolean, orphanMessages: number): Promise<void> {
    this.s = Object.assign(s, { layout: "mastra" as const, rows: { threads: 0, messages: 0, resources: 0 } });
    if (orphanMessages) {
      s.ignored += orphanMessages;
      s.ignoredFiles.push({
        namespace: "default",
        file: "mastra_messages",
        reason: `${orphanMessages} message(s) name a thread the store does not hold: Mastra never lists them; not copied`,
      });
    }
    this.had = await this.store.hasLayout();
    if (!this.had && !dryRun) await this.store.setup();
  }

  /** The record the target holds under `r`'s id, read back. */
  private async read(r: MastraRecord): Promise<Held | undefined> {
    if (r.table === "resources") {
      const there = await this.store.resource(r.resource.id);
      return there && { form: resourceForm(there), updatedAt: there.updatedAt };
    }
    const thread = await this.store.thread(r.thread.id);
    return (
      thread && {
        form: threadForm({ thread, messages: await this.store.messages(r.thread.id) }),
        updatedAt: thread.updatedAt,
      }
    );
  }

  /** Per record: whether the target holds its id (nothing when it had no tables). */
  async held(recs: MastraRecord[]): Promise<boolean[]> {
    if (!this.had || !recs.length) return recs.map(() => false);
    const out = new Map<string, boolean>();
    for (const table of ["threads", "resources"] as const) {
      const ids = recs.filter((r) => r.table === table).map(idOf);
      if (!ids.length) continue;
      const there = await this.store.existing(table, ids);
      for (const id of ids) out.set(`${table}\u0000${id}`, there.has(id));
    }
    return recs.map((r) => out.get(keyOf(r)) ?? false);
  }

  writer(): TargetWriter<MastraItem, Held> {
    const store = this.store;
    return {
      lookup: async (items) => {
        const recs = items.map((i) => i.rec);
        const held = await this.held(recs);
        const out: Array<Held | undefined> = [];
        for (const [k, r] of recs.entries()) out.push(held[k] ? await this.read(r) : undefined);
        // message ids are keys of their own: one the target holds under another thread makes the thread a conflict
        const fresh = recs.flatMap((r, k) => (r.table === "threads" && !held[k] ? r.messages.map((m) => m.id) : []));
        const taken = this.had && fresh.length ? await store.existing("messages", fresh) : new Set<string>();
        if (taken.size)
          recs.forEach((r, k) => {
            const id = r.table === "threads" ? r.messages.find((m) => taken.has(m.id))?.id : undefined;
            if (id !== undefined) out[k] = { form: `message '${id}' of another thread` };
          });
        return out;
      },
      async write(items, overwrite) {
        const threads = items.flatMap((i) => (i.rec.table === "threads" ? [i.rec] : []));
        const resources = items.flatMap((i) => (i.rec.table === "resources" ? [i.rec.resource] : []));
        if (threads.length)
          await store.write(
            { table: "threads", threads: threads.map((r) => r.thread), messages: threads.flatMap((r) => r.messages) },
            { overwrite },
          );
        if (resources.length) await store.write({ table: "resources", resources }, { overwrite });
      },
      // only where the target holds nothing under the id when the insert gets there: a concurrent writer's thread
      // or resource is left as it is, and the pipeline looks it up again (skipped, identical, or a conflict)
      async add(items) {
        const threads = items.flatMap((i) => (i.rec.table === "threads" ? [i.rec] : []));
        const resources = items.flatMap((i) => (i.rec.table === "resources" ? [i.rec.resource] : []));
        const added = new Set<string>();
        const put = (ids: Set<string>, table: string) => ids.forEach((id) => added.add(`${table}\u0000${id}`));
        if (threads.length)
          put(
            await store.add({
              table: "threads",
              threads: threads.map((r) => r.thread),
              messages: threads.flatMap((r) => r.messages),
            }),
            "threads",
          );
        if (resources.length) put(await store.add({ table: "resources", resources }), "resources");
        return items.map((i) => added.has(keyOf(i.rec)));
      },
      verify: async (written) => {
        const out: Array<{ expected: string; got: string | null } | undefined> = [];
        for (const i of written) {
          const got = (await this.read(i.rec))?.form ?? null;
          // compared by content hash (sha256 of the comparable form), as documents are
          out.push(
            got === i.form ? undefined : { expected: i.hash, got: got === null ? null : hexDigest("sha256", got) },
          );
        }
        return out;
      },
    };
  }

  counted(items: MastraItem[]): void {
    const rows = this.s!.rows;
    for (const { rec } of items)
      if (rec.table === "threads") rows.threads++, (rows.messages += rec.messages.length);
      else rows.resources++;
  }

  async end(s: MigrateSummary): Promise<void> {
    const rows = this.s?.rows;
    if (rows)
      s.figures = `Mastra memory ${s.dryRun ? "to write" : "written"}: ${fmtInt(rows.threads)} thread(s) with ${fmtInt(rows.messages)} message(s), ${fmtInt(rows.resources)} resource(s) with working memory`;
  }

  side() {
    return {
      writers: [this.writer()],
      same: (i: MastraItem, h: Held) => i.form === h.form,
      /** whether the record's `updatedAt` is later than the target's (a missing one counts as earlier) */
      newer: (i: MastraItem, h: Held) =>
        h.updatedAt === undefined ||
        Date.parse(i.rec.table === "threads" ? i.rec.thread.updatedAt : i.rec.resource.updatedAt) >
          Date.parse(h.updatedAt),
      counted: (items: MastraItem[]) => this.counted(items),
      end: (s: MigrateSummary) => this.end(s),
    };
  }
}

/** A Mastra store's memory as records: each thread with its messages, then each resource. */
function mastraEndpoint(source: MastraStore, t: MastraTarget): MigrationEndpoint<MastraRecord, MastraItem, Held> {
  return {
    parts: async () => [""],
    async count() {
      const c = await source.counts();
      return c.threads + c.resources;
    },
    async *scan(_part, size) {
      for await (const b of source.scan(size)) {
        if (b.table === "resources") {
          yield b.resources.map((resource): MastraRecord => ({ table: "resources", resource }));
          continue;
        }
        const by = new Map<string, MastraMessageRow[]>();
        for (const m of b.messages) (by.get(m.threadId) ?? by.set(m.threadId, []).get(m.threadId)!).push(m);
        yield b.threads.map(
          (thread): MastraRecord => ({ table: "threads", thread, messages: by.get(thread.id) ?? [] }),
        );
      }
    },
    labelOf: (r) => ({ namespace: r.table, threadId: idOf(r) }),
    keyOf,
    bytesRead: (r) => bytesOf(r),
    stage(batch, done) {
      const out = batch.map((r) => (done(r) ? undefined : staged(r)));
      return async () => out;
    },
    held: (rows) => t.held(rows),
    begin: async (s, dryRun) => t.begin(s, dryRun, (await source.counts()).orphanMessages),
    ...t.side(),
  };
}

/** The part of a documents run that holds the resources its threads named (after every namespace). */
const RESOURCES = "\u0000resources";

/** A document or, after them, a resource its threads named. */
type DocRow = { doc: SaverRecord } | { resource: MastraResourceRow };

/**
 * Documents of any format into Mastra memory: each converted to a `mastra` thread through the canonical model, then
 * the resources the threads name (the first thread's working memory for a resource wins; one that a later thread
 * gives otherwise is rejected with its thread).
 */
function documentsEndpoint(
  saver: Saver,
  namespaces: string[],
  t: MastraTarget,
  allowLossy: boolean,
): MigrationEndpoint<DocRow, MastraItem, Held> {
  const resources = new Map<string, MastraResourceRow>();
  const label = (r: DocRow) =>
    "doc" in r
      ? { namespace: r.doc.namespace, threadId: r.doc.threadId }
      : { namespace: "resources", threadId: r.resource.id };
  const convert = (rec: SaverRecord): Staged<MastraItem> => {
    const name = `${rec.namespace}#${rec.threadId}`;
    const r = checkRecord(name, rec.text, { toFormat: "mastra", allowLossy }, rec.threadId);
    if (!r.ok) return { reject: r.reason };
    const rows = rowsOfDocument(r.value as MastraDocument);
    const had = rows.resource && resources.get(rows.resource.id);
    if (rows.resource && had && resourceForm(had) !== resourceForm(rows.resource))
      return {
        reject: `${name}: its resource '${rows.resource.id}' has other working memory than an earlier thread's`,
      };
    if (rows.resource && !had) resources.set(rows.resource.id, rows.resource);
    return staged({ table: "threads", thread: rows.thread, messages: rows.messages });
  };
  return {
    parts: async () => [...namespaces, RESOURCES],
    count: async (ns) => (ns === RESOURCES ? 0 : saver.count(ns)),
    async *scan(ns, size) {
      if (ns !== RESOURCES) {
        for await (const b of saver.scan({ namespace: ns, batchSize: size })) yield b.map((doc) => ({ doc }));
        return;
      }
      const all = [...resources.values()];
      for (let i = 0; i < all.length; i += size) yield all.slice(i, i + size).map((resource) => ({ resource }));
    },
    labelOf: (r) => ({
      ...label(r),
      ...("doc" in r ? { file: r.doc.source ?? `${r.doc.namespace}#${r.doc.threadId}` } : {}),
    }),
    keyOf: (r) => ("doc" in r ? `threads\u0000${r.doc.threadId}` : `resources\u0000${r.resource.id}`),
    // the document as read (its Mastra rows' size is what is written); a resource is made here, not read
    bytesRead: (r) => ("doc" in r ? Buffer.byteLength(r.doc.text) : 0),
    stage(batch, done) {
      const out = batch.map((r) =>
        done(r) ? undefined : "doc" in r ? convert(r.doc) : staged({ table: "resources", resource: r.resource }),
      );
      return async () => out;
    },
    held: (rows) =>
      t.held(
        rows.map(
          (r): MastraRecord =>
            "doc" in r
              ? { table: "threads", thread: { id: r.doc.threadId } as MastraThreadRow, messages: [] }
              : { table: "resources", resource: r.resource },
        ),
      ),
    begin: (s, dryRun) => t.begin(s, dryRun, 0),
    ...t.side(),
  };
}

/** Copy a Mastra store's memory into another Mastra store (see the module comment). */
export async function migrateMastra(
  source: MastraStore,
  target: MastraStore,
  o: RunOptions = {},
): Promise<MastraMigrateSummary> {
  return (await runMigration(mastraEndpoint(source, new MastraTarget(target)), o)) as MastraMigrateSummary;
}

/** Every thread of a store of documents (the namespaces given, else all) into a Mastra store. */
export async function migrateDocumentsToMastra(
  saver: Saver,
  target: MastraStore,
  o: RunOptions & { namespaces?: string[]; allowLossy: boolean },
): Promise<MastraMigrateSummary> {
  const namespaces = o.namespaces ?? (await saver.namespaces());
  const e = documentsEndpoint(saver, namespaces, new MastraTarget(target), o.allowLossy);
  return (await runMigration(e, o)) as MastraMigrateSummary;
}

const mastraStore = (o: OpenedStore) => (o as Extract<OpenedStore, { layout: "mastra" }>).store;

/**
 * `ckpt migrate` into a Mastra store (sqlite:<path> ⇄ postgres://…?schema=, `?layout=mastra` on a new target): a
 * Mastra store's memory, or every thread of a store of documents (ckpt's, a folder, a LangGraph store's newest
 * checkpoints) through the canonical model. A Mastra store read as documents (`--to` a ckpt store or folder,
 * `--to-format`) goes the documents way (engines/ckpt/migrate.ts).
 */
export const route: MigrationRoute = {
  parallelWriters: () => false,
  oneWriter: (to) => `a Mastra target (${to}) takes one writer`,
  refuseAsTarget(args, _source, to) {
    if (args.toNamespace !== undefined)
      throw usageError(
        `--to-namespace ${args.toNamespace}: a Mastra target (${to}) has no namespaces (threads belong to resources)`,
      );
    if (args.toFormat !== undefined && args.toFormat !== "mastra")
      throw usageError(`--to-format ${args.toFormat}: a Mastra target (${to}) holds Mastra threads only`);
    if (args.toLibrary !== undefined)
      throw usageError(`--to-library ${args.toLibrary}: applies to LangGraph targets, not to Mastra stores`);
    if (args.thread?.length)
      throw usageError("--thread: picks threads of LangGraph routes; a Mastra migration copies the whole store");
  },
  refuseAsSource(target, to) {
    if (target === "langgraph")
      throw usageError(
        `--to ${to}: a Mastra store goes to a Mastra store, or as documents to a ckpt store or folder (--to-format); LangGraph targets take documents from ckpt stores`,
      );
  },
  async run(source, target, args, hooks) {
    const o = runOptions(args, hooks);
    // a Mastra store's own rows, else documents
    if (source.layout === target.layout) return migrateMastra(mastraStore(source), mastraStore(target), o);
    return migrateDocumentsToMastra(source.saver, mastraStore(target), {
      ...o,
      namespaces: hooks.namespaces,
      allowLossy: args.allowLossy,
    });
  },
};

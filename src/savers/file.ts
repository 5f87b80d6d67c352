/**
 * `file:<dir>` (or a bare folder path) — a folder in any seed system's own layout is a store (folder-layout.ts):
 * deep-agent's FileSaver (`<sanitized id>.json`), a Swarmer bot's `agent_<id>.pkl` files, a phi-core session store
 * (`<session id>.json`, its `.lock` and `.tmp.*` files passed over), yoagent / phi-core message arrays and yoagent
 * session JSONL files (thread id = the file's stem), amacs agent homes (one home, or a folder of homes). A folder
 * that mixes them is read file by file; what is not a checkpoint is ignored with its reason (`passedOver`).
 *
 * Writing keeps each system's names and bytes: a record goes into its own format's layout, or into the layout
 * `?layout=` forces. The FileSaver layout stays deep-agent compatible; unlike deep-agent:
 * - two thread ids that sanitize to the same file name never share a file: saving the second is refused with an
 *   error naming both ids (a reversible encoding would break deep-agent's own `load(threadId)`, so we refuse);
 * - the real thread id is read from each document (`list` returns thread ids, not file stems);
 * - writes are atomic: temp file in the same folder, fsync, rename, fsync of the folder (phi-core sessions: under
 *   phi-core's own lock, with its temp file names — phi-lock.ts).
 * Namespaces other than "default" live in a sub-folder named after the sanitized namespace.
 * A `file:` URI naming a single file is a read-only, one-thread source: see single-file.ts.
 */
import { mkdir, opendir, rmdir, stat, unlink } from "node:fs/promises";
import { InvalidUtf8Error, readUtf8File } from "../base/utf8.js";
import { existsSync, opendirSync, readdirSync, statSync, type Dir } from "node:fs";
import { basename, join } from "node:path";
import { ExitCode, inputError, RecordError, storeError } from "../base/errors.js";
import { writeFileAtomic, writeFilesAtomic } from "../base/atomic.js";
import { idleCore } from "../base/cores.js";
import { bundleText } from "../formats/bundle.js";
import { checkThreadId, compareIds, reformat } from "./common.js";
import { ioError, threadIdIn } from "./fs-common.js";
import {
  MAX_NAME,
  parseLayout,
  planRecord,
  sanitizeThreadId,
  type Layout,
  type Plan,
  type PlannedFile,
} from "./folder-layout.js";
import {
  AMACS_FILES,
  dirEntries,
  fileEntry,
  homeEntries,
  isHome,
  readHead,
  type FolderEntry,
  type FoundRecord,
  type IgnoredEntry,
} from "./folder-scan.js";
import { readAheadEntries, type Listed } from "./folder-read-ahead.js";
import { PHI_LOCK_WAIT_MS, withFlock, writeLikePhiCore } from "./phi-lock.js";
import {
  DEFAULT_NAMESPACE,
  type ListOptions,
  type PassedOver,
  type Saver,
  type SaverFactory,
  type SaverRecord,
  type ThreadInfo,
} from "./types.js";

export { sanitizeThreadId } from "./folder-layout.js";
export const SAVER_NAME = "file";

export interface FileSaverOptions {
  /** `?layout=`: write every record in this layout (else each in its own format's) */
  layout?: Layout;
  /** `?lock-wait=<seconds>`: how long to wait for a phi-core session lock (phi-core's own budget: 5 s) */
  lockWaitMs?: number;
  readOnly?: boolean;
}

export const createFileSaver: SaverFactory = async ({
  location,
  uri,
  namespace: defaultNamespace = DEFAULT_NAMESPACE,
  params,
  readOnly = false,
}) => {
  const st = await stat(location).catch(() => undefined);
  if (!st && readOnly)
    throw inputError("missing-store", "no such file or folder (reading never creates a store)", { file: uri });
  if (st?.isFile()) return (await import("./single-file.js")).createSingleFileSaver(location, uri);
  const layout = params?.get("layout");
  const wait = params?.get("lock-wait");
  if (wait !== null && wait !== undefined && !(Number(wait) >= 0))
    throw storeError("bad-uri", `?lock-wait= takes seconds, not '${wait}'`);
  return new FolderStore(location, uri, defaultNamespace, {
    layout: layout ? parseLayout(layout) : undefined,
    lockWaitMs: wait ? Number(wait) * 1000 : PHI_LOCK_WAIT_MS,
    readOnly,
  });
};

/**
 * A scan reads the files of a folder with more than `threshold` of them ahead in a worker (folder-read-ahead.ts),
 * `group` names per request, about two batches ahead — `when` a core is idle ("idle"; "always", "never"): on a
 * machine whose cores are all busy the worker's start-up and the hand-over of every text cost the process more CPU
 * than the reads it takes off the main thread (#14: bench/migrate.mjs at load 5–8 on 2 cores, ratios to a raw copy
 * fell from 0.66–0.82 to 0.43–0.56 with it).
 */
export const READ_AHEAD: {
  threshold: number;
  group: number;
  when: "idle" | "always" | "never";
  waitForReader?: boolean;
} = { threshold: 1000, group: 128, when: "idle" };

/** Whether a folder is an amacs home (holds one of its org files), without listing the folder. */
const holdsHome = (dir: string) => AMACS_FILES.some((n) => existsSync(join(dir, n)));

const enoent = (e: unknown) => (e as NodeJS.ErrnoException).code === "ENOENT";

function readText(path: string): string | undefined {
  try {
    return readUtf8File(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (e instanceof InvalidUtf8Error) throw inputError("encoding", e.message, { file: path }, e);
    // ENAMETOOLONG: no file of that name can exist (a thread id too long for a file name is not in the folder)
    if (enoent(e) || code === "EISDIR" || code === "ENOTDIR" || code === "ENAMETOOLONG") return undefined;
    throw ioError(e, "cannot read", path);
  }
}

/** A thread id that can be a file name as it is (no separators, not "." or ".."). */
const nameable = (id: string) =>
  !/[/\\\u0000]/.test(id) && id !== "." && id !== ".." && Buffer.byteLength(id) < MAX_NAME - 12;

/** Refuse to put a thread into a `.json` file that holds another thread (FileSaver names collide after sanitizing). */
function checkCollision(path: string, threadId: string, namespace?: string): void {
  let head: string;
  try {
    head = readHead(path).head;
  } catch {
    return;
  }
  const other = threadIdIn(head);
  if (other !== undefined && other !== threadId) {
    throw new RecordError(
      ExitCode.STORE,
      "file-id-collision",
      `thread ids '${threadId}' and '${other}' both map to ${basename(path)} (FileSaver replaces every character outside [a-zA-Z0-9_-] with '_'): refusing to overwrite '${other}'`,
      { threadId, namespace },
      { file: path },
    );
  }
}

/** Why no store can hold this thread id (empty, a NUL), or undefined. */
function badThreadId(id: string): string | undefined {
  try {
    checkThreadId(id);
    return undefined;
  } catch (e) {
    if (e instanceof RecordError) return e.message;
    throw e;
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

/** A record checked for writing: where and how it goes. */
interface Planned {
  threadId: string;
  text: string;
  dir: string;
  plan: Plan;
}

interface NsReport {
  ignored: PassedOver[];
  rejected: PassedOver[];
}

class FolderStore implements Saver {
  /** FileSaver documents whose file name is not the sanitized form of the thread id they hold: ns\0id → path. */
  private readonly misplaced = new Map<string, string>();
  private readonly reports = new Map<string, NsReport>();
  /** the reader workers of scans under way (a scan ends its own; close() ends those of scans given up) */
  private readonly readers = new Set<{ close(): Promise<void> }>();

  constructor(
    private readonly location: string,
    readonly uri: string,
    private readonly defaultNamespace: string,
    private readonly opts: FileSaverOptions,
  ) {}

  private ns = (n?: string) => n ?? this.defaultNamespace;
  private dirOf = (n?: string) =>
    this.ns(n) === DEFAULT_NAMESPACE ? this.location : join(this.location, sanitizeThreadId(this.ns(n)));
  private key = (id: string, n?: string) => `${this.ns(n)}\u0000${id}`;

  /**
   * The listing of a namespace folder (streamed: a folder of a million documents is never listed into one array), or
   * the entries of a folder that is itself an amacs home (one thread named after it).
   */
  private *listing(namespace: string): Generator<Listed, FolderEntry[] | undefined> {
    const dir = this.dirOf(namespace);
    let handle: Dir;
    try {
      handle = opendirSync(dir, { bufferSize: 256 });
    } catch (e) {
      if (enoent(e)) return [];
      throw ioError(e, "cannot list", dir);
    }
    if (holdsHome(dir)) {
      handle.closeSync();
      return homeEntries(dir, "", basename(join(dir)));
    }
    try {
      for (let d = handle.readSync(); d !== null; d = handle.readSync()) yield { name: d.name, dir: d.isDirectory() };
    } finally {
      handle.closeSync();
    }
    return undefined;
  }

  /** Every entry of a namespace folder, each file's head read (list). */
  private *entries(namespace: string): Generator<FolderEntry> {
    const dir = this.dirOf(namespace);
    const it = this.listing(namespace);
    for (let r = it.next(); ; r = it.next()) {
      if (r.done) return yield* r.value ?? [];
      if (r.value.dir) yield* dirEntries(dir, r.value.name);
      else yield fileEntry(dir, r.value.name, false);
    }
  }

  /** Every entry of a namespace folder, each file's text read (scan): a large folder's read ahead by a worker. */
  private async *scanEntries(namespace: string, batchSize: number): AsyncGenerator<FolderEntry[]> {
    const dir = this.dirOf(namespace);
    const it = this.listing(namespace);
    let home: FolderEntry[] | undefined;
    const listed: Iterator<Listed> = {
      next: () => {
        const r = it.next();
        if (r.done) home = r.value;
        return r.done ? { done: true, value: undefined } : r;
      },
    };
    try {
      const { threshold, group, when, waitForReader } = READ_AHEAD;
      const mayStart = () => when === "always" || (when === "idle" && idleCore());
      yield* readAheadEntries(dir, listed, {
        threshold,
        group,
        window: Math.max(2, Math.ceil((2 * batchSize) / group)),
        waitForReader,
        mayStart,
        track: this.readers,
      });
    } finally {
      it.return(undefined);
    }
    if (home?.length) yield home;
  }

  private report(namespace: string): NsReport {
    let r = this.reports.get(namespace);
    if (!r) this.reports.set(namespace, (r = { ignored: [], rejected: [] }));
    return r;
  }

  /**
   * Whether a found record is the one its thread id reads from (two files claiming one thread: the FileSaver
   * document at its own path wins, as FileSaver.load reads it; else the first found). The loser is rejected.
   * A FileSaver document at its own path is not remembered in `seen`: every other file for its thread finds it on
   * disk (`holds`), whichever comes first. So a FileSaver folder of a million documents keeps no map of a million
   * thread ids; only files read by name or misplaced documents are remembered.
   */
  private winner(rec: FoundRecord, namespace: string, seen: Map<string, string>): boolean {
    const dir = this.dirOf(namespace);
    const own = sanitizeThreadId(rec.threadId) + ".json";
    const atOwn = rec.rel === own;
    if (rec.byContent && atOwn) return true;
    const before = seen.get(rec.threadId);
    let lost: string | undefined;
    if (!atOwn && holds(join(dir, own), rec.threadId)) lost = own;
    else if (before !== undefined) lost = before;
    if (lost !== undefined) {
      this.report(namespace).rejected.push({
        namespace,
        threadId: rec.threadId,
        path: join(dir, rec.rel),
        reason: `thread '${rec.threadId}' is read from ${lost}: a second file for one thread is not read`,
      });
      return false;
    }
    seen.set(rec.threadId, rec.rel);
    if (rec.byContent) this.misplaced.set(this.key(rec.threadId, namespace), join(dir, rec.rel));
    return true;
  }

  async *scan(options: { namespace?: string; batchSize?: number } = {}): AsyncIterable<SaverRecord[]> {
    const namespace = this.ns(options.namespace);
    const size = Math.max(1, options.batchSize ?? 200);
    const dir = this.dirOf(namespace);
    this.reports.set(namespace, { ignored: [], rejected: [] });
    const seen = new Map<string, string>();
    let batch: SaverRecord[] = [];
    for await (const es of this.scanEntries(namespace, size))
      for (const e of es) {
        if (e.kind === "ignored") this.passOver(namespace, e);
        if (e.kind !== "record" || !this.winner(e, namespace, seen)) continue;
        batch.push({ namespace, threadId: e.threadId, text: e.text!, source: join(dir, e.rel) });
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
    if (batch.length) yield batch;
  }

  /** An entry that is not a record: ignored (not a checkpoint), or rejected (a checkpoint's file ckpt cannot read). */
  private passOver(namespace: string, e: IgnoredEntry): void {
    const path = join(this.dirOf(namespace), e.rel);
    if (e.unreadable)
      this.report(namespace).rejected.push({ namespace, threadId: e.unreadable.threadId, path, reason: e.reason });
    else this.report(namespace).ignored.push({ namespace, path, reason: e.reason });
  }

  passedOver(namespace?: string): { ignored: PassedOver[]; rejected: PassedOver[] } {
    return this.reports.get(this.ns(namespace)) ?? { ignored: [], rejected: [] };
  }

  async *list(options: ListOptions = {}): AsyncIterable<ThreadInfo> {
    const namespace = this.ns(options.namespace);
    const seen = new Map<string, string>();
    this.reports.set(namespace, { ignored: [], rejected: [] });
    const found: FoundRecord[] = [];
    // FileSaver documents at their own path first, so that they win over misplaced copies whatever the folder order
    const all: FoundRecord[] = [];
    for (const e of this.entries(namespace))
      if (e.kind === "record") all.push(e);
      else if (e.kind === "ignored") this.passOver(namespace, e);
    all.sort(
      (a, b) =>
        Number(b.rel === sanitizeThreadId(b.threadId) + ".json") -
        Number(a.rel === sanitizeThreadId(a.threadId) + ".json"),
    );
    for (const e of all) {
      // a file whose thread id no store can hold (empty, a NUL) is one finding, named; the rest are listed
      const bad = badThreadId(e.threadId);
      if (bad !== undefined)
        this.report(namespace).rejected.push({
          namespace,
          threadId: e.threadId,
          path: join(this.dirOf(namespace), e.rel),
          reason: bad,
        });
      else if (this.winner(e, namespace, seen)) found.push({ ...e, text: undefined });
    }
    found.sort((a, b) => compareIds(a.threadId, b.threadId));
    let n = 0;
    for (const e of found) {
      if (options.after !== undefined && compareIds(e.threadId, options.after) <= 0) continue;
      if (options.limit !== undefined && n++ >= options.limit) return;
      yield { namespace, threadId: e.threadId, bytes: e.size, updatedAt: new Date(e.mtimeMs).toISOString() };
    }
  }

  /** The text of thread `id`: the first file (or home) that stands for it, in each layout's naming. */
  async load(threadId: string, namespace?: string): Promise<string | undefined> {
    checkThreadId(threadId);
    const dir = this.dirOf(namespace);
    const own = join(dir, sanitizeThreadId(threadId) + ".json");
    const text = readText(own);
    if (text !== undefined && (threadIdIn(text) ?? basename(own, ".json")) === threadId) return text;
    if (nameable(threadId)) {
      const found = this.loadNamed(dir, threadId);
      if (found !== undefined) return found;
    }
    const other = this.misplaced.get(this.key(threadId, namespace));
    const t = other === undefined ? undefined : readText(other);
    return t !== undefined && threadIdIn(t) === threadId ? t : undefined;
  }

  private loadNamed(dir: string, id: string): string | undefined {
    const json = readText(join(dir, `${id}.json`));
    if (json !== undefined && (threadIdIn(json) ?? id) === id) return json;
    const pkl = readText(join(dir, `agent_${id}.pkl`)) ?? readText(join(dir, `${id}.pkl`));
    if (pkl !== undefined) return pkl;
    const jsonl = readText(join(dir, `${id}.jsonl`));
    if (jsonl !== undefined) return bundleText("yoagent-session", { [`${id}.jsonl`]: jsonl });
    const home = this.homeDir(dir, id);
    if (home === undefined) return undefined;
    const rec = homeEntries(home, id, id)[0]!;
    if (rec.kind === "ignored") throw inputError("encoding", rec.reason, { file: join(home, rec.rel) });
    if (rec.kind !== "record") return undefined;
    return rec.text;
  }

  /** The amacs home of thread `id`: `<dir>/<id>/`, or the folder itself when it is a home named `id`. */
  private homeDir(dir: string, id: string): string | undefined {
    const sub = join(dir, id);
    // by the org files' paths, without listing the folder (a miss in a folder of a million files lists nothing)
    if (holdsHome(sub)) return sub;
    if (basename(join(dir)) === id && holdsHome(dir)) return dir;
    return undefined;
  }

  async loadMany(keys: Array<{ threadId: string; namespace: string }>): Promise<Array<string | undefined>> {
    const out: Array<string | undefined> = [];
    for (const k of keys) out.push(await this.load(k.threadId, k.namespace));
    return out;
  }

  async exists(threadId: string, namespace?: string): Promise<boolean> {
    return (await this.load(threadId, namespace)) !== undefined;
  }

  private refuseReadOnly(): void {
    if (this.opts.readOnly)
      throw storeError("read-only", `${this.uri} is opened to read: nothing is written to it`, { file: this.location });
  }

  async save(threadId: string, text: string, namespace?: string): Promise<void> {
    await this.put(this.planWrite({ threadId, text, namespace }), false);
  }

  /**
   * Everything about writing a record that can refuse it (a RecordError: an id no store or no file name can hold, a
   * layout that cannot hold its format, a FileSaver name another thread's file has), checked before anything is
   * written: a batch is either refused at one record before any write, or written.
   */
  private planWrite(r: { threadId: string; text: string; namespace?: string }): Planned {
    this.refuseReadOnly();
    const { threadId, namespace } = r;
    checkThreadId(threadId, namespace);
    const dir = this.dirOf(namespace);
    const name = `${this.uri}#${threadId}`;
    const plan = planRecord(threadId, r.text, this.opts.layout, name);
    const first = plan.files[0]!;
    if (plan.layout === "deepagent" && Buffer.byteLength(first.rel) > MAX_NAME) {
      throw new RecordError(
        ExitCode.STORE,
        "file-name-too-long",
        `thread id is too long for a file name (${Buffer.byteLength(first.rel)} bytes; the limit is ${MAX_NAME})`,
        { threadId, namespace },
        { file: join(dir, first.rel.slice(0, 40) + "…") },
      );
    }
    if (plan.layout === "deepagent" || plan.layout === "phi-core-session")
      checkCollision(join(dir, first.rel), threadId, namespace);
    else if (plan.layout !== "amacs")
      for (const f of plan.files) if (f.rel.endsWith(".json")) checkCollision(join(dir, f.rel), threadId, namespace);
    return { threadId, text: r.text, dir, plan };
  }

  /** Write a planned record; `exclusive`: only where its file does not exist yet (whether it was written). */
  private async put(p: Planned, exclusive: boolean): Promise<boolean> {
    const { threadId, dir, plan } = p;
    const first = plan.files[0]!;
    switch (plan.layout) {
      case "deepagent":
        return writeFileAtomic(join(dir, first.rel), reformat(p.text, 2, `${this.uri}#${threadId}`), { exclusive });
      case "phi-core-session": {
        const path = join(dir, first.rel);
        await mkdir(dir, { recursive: true }).catch((e) => {
          throw ioError(e, "cannot create folder", dir);
        });
        return withFlock(
          `${path}.lock`,
          this.opts.lockWaitMs ?? PHI_LOCK_WAIT_MS,
          `phi-core session '${threadId}'`,
          () => writeLikePhiCore(path, first.text, exclusive),
        );
      }
      case "amacs":
        return this.writeHome(dir, threadId, plan.files, exclusive);
      default:
        return writeFilesAtomic(
          plan.files.map((f) => ({ path: join(dir, f.rel), text: f.text })),
          { exclusive },
        );
    }
  }

  /** An amacs home: into the folder itself when it is the home of this thread, else `<dir>/<id>/`. */
  private writeHome(dir: string, threadId: string, files: PlannedFile[], exclusive: boolean): Promise<boolean> {
    const home = this.homeDir(dir, threadId) ?? join(dir, threadId);
    return writeFilesAtomic(
      files.map((f) => ({ path: join(home, basename(f.rel)), text: f.text })),
      { exclusive },
    );
  }

  async saveMany(records: SaverRecord[]): Promise<void> {
    const planned = records.map((r) => this.planWrite(r));
    for (const p of planned) await this.put(p, false);
  }

  /** Each record whose thread the folder does not hold, in a file created exclusively (never over another's). */
  async addMany(records: SaverRecord[]): Promise<boolean[]> {
    const planned = records.map((r) => this.planWrite(r));
    const out: boolean[] = [];
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      out.push((await this.load(r.threadId, r.namespace)) === undefined && (await this.put(planned[i]!, true)));
    }
    return out;
  }

  async delete(threadId: string, namespace?: string): Promise<boolean> {
    this.refuseReadOnly();
    checkThreadId(threadId);
    const dir = this.dirOf(namespace);
    const candidates = [join(dir, sanitizeThreadId(threadId) + ".json")];
    if (nameable(threadId))
      candidates.push(
        ...[`${threadId}.json`, `agent_${threadId}.pkl`, `${threadId}.pkl`, `${threadId}.jsonl`].map((n) =>
          join(dir, n),
        ),
      );
    for (const p of candidates) {
      const t = readText(p);
      if (t === undefined || (p.endsWith(".json") && (threadIdIn(t) ?? basename(p, ".json")) !== threadId)) continue;
      await unlink(p).catch((e) => {
        throw ioError(e, "cannot delete", p);
      });
      return true;
    }
    const home = nameable(threadId) ? this.homeDir(dir, threadId) : undefined;
    if (home === undefined) return false;
    for (const n of ["agent-chat.org", "scratchpad.org"]) await unlink(join(home, n)).catch(() => undefined);
    if (home !== dir) await rmdir(home).catch(() => undefined); // only when nothing else is left in it
    return true;
  }

  async count(namespace?: string): Promise<number> {
    const dir = this.dirOf(namespace);
    if (holdsHome(dir)) return 1;
    // streamed (opendir), not readdir: a million names in one array would be the peak of a migration's memory
    const names = await opendir(dir, { bufferSize: 256 }).catch(() => []);
    let n = 0;
    for await (const d of names) {
      if (d.isDirectory()) n += isHome(readdirSync(join(dir, d.name))) ? 1 : 0;
      else if (/\.(json|pkl|jsonl)$/.test(d.name) && !/\.tmp\.|\.tmp-|\.ckpt-tmp-/.test(d.name)) n++;
    }
    return n;
  }

  async namespaces(): Promise<string[]> {
    let handle: Dir;
    try {
      handle = opendirSync(this.location, { bufferSize: 256 });
    } catch {
      return [];
    }
    if (holdsHome(this.location)) {
      handle.closeSync();
      return [DEFAULT_NAMESPACE];
    }
    const out: string[] = [];
    let other = false; // anything besides namespace folders: the default namespace (records, or entries to report as ignored)
    // streamed, and a stat only for what the directory entry cannot tell (a link): a million files cost no array of names.
    // Read synchronously, as `listing` does: the asynchronous iterator sends every 256 entries to the thread pool and
    // back and settles a promise per entry (10,000 files: ~25 ms of CPU and, on a busy machine, ~100 ms of waiting
    // to be scheduled again after each hand-over; synchronously ~5–10 ms)
    try {
      for (let d = handle.readSync(); d !== null; d = handle.readSync()) {
        const n = d.name;
        let isDir = d.isDirectory();
        try {
          if (d.isSymbolicLink()) isDir = statSync(join(this.location, n)).isDirectory();
        } catch {
          continue;
        }
        if (isDir && dirEntries(this.location, n)[0]?.kind === "namespace") out.push(n);
        else other = true;
      }
    } finally {
      handle.closeSync();
    }
    if (other) out.push(DEFAULT_NAMESPACE);
    return out.sort(compareIds);
  }

  async close(): Promise<void> {
    await Promise.all([...this.readers].map((r) => r.close()));
    this.readers.clear();
  }
}

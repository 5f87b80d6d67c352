/**
 * A scan of a large store folder can read its files ahead, off the main thread (#14): a migration is bound by that
 * thread, and reading a file synchronously costs it ~14 µs (open, read, read, close; measured on a 2-core VM).
 *
 * The main thread lists the folder itself (the same names in the same order as a synchronous scan) and classifies
 * every entry by folder-scan.ts's rules; a reader worker (node builtins only, nothing of ckpt loaded) reads the texts
 * of the listed checkpoint files, a group of names at a time. At most `window` groups are asked for and not yet
 * classified, so memory stays bounded by a couple of batches whatever the folder's size. A small folder never starts
 * the worker: its first `threshold` files are read here, synchronously, and the worker takes over only once it has
 * started (reading goes on here until then). If the worker fails (cannot start, runs out of memory, a reply cannot be
 * received), the files it was asked for are read here: the entries are the same.
 *
 * What it costs: the worker's start-up (~70 ms of CPU on another thread) and the hand-over of every text (~3 µs a
 * file on the worker, ~1.5 µs here). It takes ~75–90 ms of main-thread CPU off a 10,000-file migration, and pays only
 * when a core is idle to run it (the caller decides: `mayStart`). The libuv thread pool was measured too (fs.promises
 * readFile, 32 in flight): each file's open, read and close are round trips whose callbacks run on the main thread —
 * 3× the main thread's time of the synchronous reads.
 */
import { join } from "node:path";
import type { MessagePort, Worker } from "node:worker_threads";
import { checkedUtf8 } from "../base/utf8.js";
import {
  dirEntries,
  fileEntry,
  isDocName,
  nameIgnored,
  readFailed,
  textEntry,
  type FolderEntry,
} from "./folder-scan.js";

/** An entry of the folder's listing. */
export interface Listed {
  name: string;
  dir: boolean;
}

/** A file's text, or why it could not be read. */
type Read = string | { code?: string; message: string };

/** A text the reader decoded (with replacement): its entry, or a rejection naming the first byte that is not UTF-8. */
function checkedEntry(name: string, text: string, path: string): FolderEntry {
  try {
    return textEntry(name, checkedUtf8(text, path));
  } catch (e) {
    return readFailed(name, (e as NodeJS.ErrnoException).code, (e as Error).message, path);
  }
}

export interface ReadAheadOptions {
  /** files read here before the worker is started (a folder with fewer never starts it) */
  threshold: number;
  /** listing entries per group (one request to the worker) */
  group: number;
  /** groups asked for and not yet classified */
  window: number;
  /** wait for the reader to start, rather than read on here meanwhile (tests: the switch comes at the threshold) */
  waitForReader?: boolean;
  /** whether a reader may start now (once the threshold is reached): a core to run it on */
  mayStart?: () => boolean;
  /** called with each reader started, so that its store's close() can end it */
  track?: Set<{ close(): Promise<void> }>;
}

/** Readers started and files whose texts came from one, since the process started (tests, benches). */
export const readAheadStats = { readers: 0, files: 0 };

/**
 * The reader worker's code: it reads the files of each group of names asked for on `port` and posts their texts (or
 * why not) back on it, then pings the parent port (the main thread drains `port` synchronously — a migration into
 * SQLite may not turn the event loop for a while — and waits for a ping only when the texts it needs are not there).
 */
function readerMain(
  fs: typeof import("node:fs"),
  path: typeof import("node:path"),
  wt: typeof import("node:worker_threads"),
): void {
  const { dir, port } = wt.workerData as { dir: string; port: import("node:worker_threads").MessagePort };
  port.on("message", (m: { id: number; names: string[] }) => {
    const reads = m.names.map((n) => {
      try {
        return fs.readFileSync(path.join(dir, n), "utf8");
      } catch (e) {
        return { code: (e as NodeJS.ErrnoException).code, message: (e as Error).message };
      }
    });
    port.postMessage({ id: m.id, reads });
    wt.parentPort!.postMessage(0);
  });
  port.postMessage("ready");
  wt.parentPort!.postMessage(0);
}
// import(), not require(): the worker inherits the process's flags, and under --input-type=module its code is a module
const READER_SOURCE = `Promise.all([import("node:fs"), import("node:path"), import("node:worker_threads")]).then(([fs, path, wt]) => (${readerMain.toString()})(fs, path, wt))`;

type WT = typeof import("node:worker_threads");

/**
 * The reader worker, as the main thread sees it. It keeps Node alive only while the scan waits for a reply (unref'd
 * otherwise), so a scan given up without `return()` never holds the process; `close()` terminates it.
 */
class Reader {
  failed = false;
  private isReady = false;
  private readonly replies = new Map<number, Read[]>();
  private wake: (() => void) | undefined;
  private closed = false;

  private constructor(
    private readonly wt: WT,
    private readonly worker: Worker,
    private readonly port: MessagePort,
  ) {
    worker.unref();
    port.unref();
    worker.on("message", () => this.notify());
    const fail = () => {
      this.failed = true;
      this.notify();
    };
    worker.on("error", fail);
    worker.on("exit", fail);
  }

  static async start(dir: string): Promise<Reader | undefined> {
    try {
      const wt = await import("node:worker_threads");
      const { port1, port2 } = new wt.MessageChannel();
      // a small young generation: the worker holds one group of texts at a time (its peak RSS grew with the folder's
      // size without it: migrating 10,000 → 50,000 files +30 MB, with it +15–22 MB)
      const limits = { maxYoungGenerationSizeMb: 4 };
      const worker = new wt.Worker(READER_SOURCE, {
        eval: true,
        workerData: { dir, port: port2 },
        transferList: [port2],
        resourceLimits: limits,
      });
      readAheadStats.readers++;
      return new Reader(wt, worker, port1);
    } catch {
      return undefined; // no worker (a runtime without them): the folder is read here
    }
  }

  /** Take the replies that came in (synchronously: without a turn of the event loop). */
  private drain(): void {
    try {
      for (
        let m = this.wt.receiveMessageOnPort(this.port);
        m !== undefined;
        m = this.wt.receiveMessageOnPort(this.port)
      ) {
        const r = m.message as "ready" | { id: number; reads: Read[] };
        if (r === "ready") this.isReady = true;
        else this.replies.set(r.id, r.reads);
      }
    } catch {
      this.failed = true; // a reply that cannot be received: its files (and the rest) are read here
    }
  }

  get ready(): boolean {
    if (!this.isReady && !this.failed) this.drain();
    return this.isReady;
  }

  /** Once the worker has started (or failed to). */
  async started(): Promise<void> {
    while (!this.ready && !this.failed) await this.ping();
  }

  /** The next ping of the worker (or its end); Node is kept alive meanwhile. */
  private async ping(): Promise<void> {
    this.worker.ref();
    await new Promise<void>((resolve) => (this.wake = resolve));
    this.worker.unref();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  request(id: number, names: string[]): void {
    if (!this.failed) this.port.postMessage({ id, names });
  }

  /** The texts of group `id` (in its names' order), or undefined when the worker failed: then they are read here. */
  async take(id: number): Promise<Read[] | undefined> {
    for (;;) {
      this.drain();
      const reads = this.replies.get(id);
      if (reads) {
        this.replies.delete(id);
        return reads;
      }
      if (this.failed || this.closed) return undefined;
      await this.ping();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.replies.clear();
    this.port.close();
    await this.worker.terminate();
  }
}

/** The entries of one listing entry, read here. */
const entriesHere = (dir: string, l: Listed): FolderEntry[] =>
  l.dir ? dirEntries(dir, l.name) : [fileEntry(dir, l.name, true)];

interface Group {
  id: number;
  listed: Listed[];
  /** the names asked of the worker: the checkpoint files among `listed` */
  names: string[];
}

/**
 * The entries of a folder listing, in its order, in arrays of about `group` entries (one await per array, not per
 * entry), as the synchronous scan would classify them: the files read here at first, then ahead by the worker.
 */
export async function* readAheadEntries(
  dir: string,
  listing: Iterator<Listed>,
  opts: ReadAheadOptions,
): AsyncGenerator<FolderEntry[]> {
  let reader: Reader | undefined;
  let files = 0;
  let done = false;
  let peeked: Listed | undefined;
  const next = (): Listed | undefined => {
    if (peeked !== undefined) {
      const l = peeked;
      peeked = undefined;
      return l;
    }
    if (done) return undefined;
    const r = listing.next();
    done = r.done === true;
    return r.done ? undefined : r.value;
  };
  const more = () => (peeked ??= next()) !== undefined;
  try {
    // read here: the whole of a small folder; a large one's first files, until the worker is ready
    for (;;) {
      if (reader === undefined && files >= opts.threshold && more()) {
        reader = (opts.mayStart?.() ?? true) ? await Reader.start(dir) : undefined;
        if (reader) opts.track?.add(reader);
        else files = -Infinity; // never again
        if (reader && opts.waitForReader) await reader.started();
      }
      if (reader?.failed) {
        opts.track?.delete(reader);
        await reader.close();
        reader = undefined;
        files = -Infinity;
      }
      if (reader?.ready) return yield* readAhead(dir, reader, next, opts);
      const out: FolderEntry[] = [];
      for (let l = next(), n = 0; l !== undefined; l = ++n < opts.group ? next() : undefined) {
        out.push(...entriesHere(dir, l));
        if (!l.dir && isDocName(l.name)) files++;
      }
      if (out.length) yield out;
      if (!more()) return;
      // a turn of the event loop between groups: a migration's writes in flight get their replies handled and send
      // their next statement now, not after the batch has been read (file → postgres: 557 → 478 ms for 10,000)
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    if (reader) {
      opts.track?.delete(reader);
      await reader.close();
    }
  }
}

/** The rest of the listing, its files read ahead by the worker: up to `window` groups asked for at a time. */
async function* readAhead(
  dir: string,
  reader: Reader,
  next: () => Listed | undefined,
  opts: ReadAheadOptions,
): AsyncGenerator<FolderEntry[]> {
  const queue: Group[] = [];
  let ids = 0;
  let end = false;
  const fill = () => {
    while (!end && queue.length < opts.window) {
      const g: Group = { id: ids++, listed: [], names: [] };
      for (let l = next(); l !== undefined; l = g.listed.length < opts.group ? next() : undefined) {
        g.listed.push(l);
        if (!l.dir && isDocName(l.name)) g.names.push(l.name);
      }
      if (g.listed.length < opts.group) end = true;
      if (g.listed.length === 0) break;
      if (g.names.length) reader.request(g.id, g.names);
      queue.push(g);
    }
  };
  fill();
  for (let g = queue.shift(); g !== undefined; g = queue.shift()) {
    const reads = g.names.length ? await reader.take(g.id) : [];
    fill(); // the next group is asked for before this one is classified: the worker reads while this thread works
    const out: FolderEntry[] = [];
    let k = 0;
    for (const l of g.listed) {
      if (l.dir) out.push(...dirEntries(dir, l.name));
      else if (!isDocName(l.name)) out.push(nameIgnored(l.name));
      else if (reads === undefined) out.push(fileEntry(dir, l.name, true));
      else {
        const r = reads[k++]!;
        readAheadStats.files++;
        out.push(
          typeof r === "string"
            ? checkedEntry(l.name, r, join(dir, l.name))
            : readFailed(l.name, r.code, r.message, join(dir, l.name)),
        );
      }
    }
    yield out;
  }
}

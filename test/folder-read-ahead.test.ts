/**
 * A scan of a large store folder reads its files ahead in a worker (#14). Whatever reads a file — this thread or the
 * reader worker, and wherever the switch from one to the other falls — the scan must give exactly what the
 * synchronous scan gives: the same records (text, thread id, source) in the same order, the same ignored entries
 * and the same rejected second files, with the same reasons. The worker must end with the scan on every path (the
 * end, an early `return()`, a migration that stops, the store's close) and never keep the process alive.
 */
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync, spawnSync } from "node:child_process";
import { openSaver } from "../src/savers/index.js";
import { READ_AHEAD } from "../src/savers/file.js";
import { readAheadEntries, readAheadStats, type Listed } from "../src/savers/folder-read-ahead.js";
import type { Saver } from "../src/savers/types.js";

const root = join(import.meta.dirname, "..");
const fx = (p: string) => join(root, "fixtures", p);
const base = JSON.parse(readFileSync(fx("deepagent/valid/user_42_session_1.json"), "utf8"));
const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "ckpt-read-ahead-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
// the tests' readers start whatever the machine's load, and take over right at the threshold
const defaults = { ...READ_AHEAD, when: "always" as const, waitForReader: true };
const initial = { ...READ_AHEAD };
beforeEach(() => Object.assign(READ_AHEAD, defaults));
afterAll(() => Object.assign(READ_AHEAD, initial));

/** A FileSaver document of thread `id`, as deep-agent writes it (2-space JSON, threadId first). */
const doc = (id: string, step = 1) => JSON.stringify({ ...base, threadId: id, step }, null, 2);

/**
 * A folder holding every kind of entry a scan classifies, with `n` plain FileSaver documents among them: records of
 * each seed system, a misplaced copy of a thread (rejected: a second file), JSON that is no checkpoint and JSON lines
 * that are no session (ignored), files that do not parse (records the check rejects), lock and temp files, a file
 * gone before it is read (a dangling link), unreadable ones (a link to a folder, a link loop), a namespace folder, an
 * amacs home, a git folder and an empty folder.
 */
function mixedFolder(n: number): string {
  const d = tmp();
  for (let i = 0; i < n; i++) writeFileSync(join(d, `thread-${i}.json`), doc(`thread-${i}`, i));
  writeFileSync(join(d, "copy-of-thread-3.json"), doc("thread-3", 99));
  writeFileSync(join(d, "elsewhere.json"), doc("lost thread/1")); // a FileSaver document away from its own path
  copyFileSync(fx("swarmer/valid/agent_123456789.pkl"), join(d, "agent_123456789.pkl"));
  copyFileSync(fx("yoagent-session/valid/session.v0.18.jsonl"), join(d, "session.v0.18.jsonl"));
  copyFileSync(fx("phi-core-session/valid/session.sess-1.v0.10.json"), join(d, "sess-1.json"));
  writeFileSync(join(d, "sess-1.json.lock"), "");
  writeFileSync(join(d, "sess-1.json.tmp.4242.1767225600000000000"), "{");
  writeFileSync(join(d, "lines.jsonl"), '{"a":1}\n{"b":2}\n');
  writeFileSync(join(d, "settings.json"), '{"theme":"dark"}');
  writeFileSync(join(d, "truncated.json"), '{\n  "threadId": "truncated",\n  "step": 1,\n');
  writeFileSync(join(d, "not-json.pkl"), "\u0080\u0004 pickle bytes");
  writeFileSync(join(d, "notes.txt"), "not a checkpoint");
  symlinkSync(join(d, "no-such-target.json"), join(d, "gone.json"));
  mkdirSync(join(d, "a-folder"));
  symlinkSync(join(d, "a-folder"), join(d, "folder-link.json"));
  symlinkSync(join(d, "loop.json"), join(d, "loop.json"));
  mkdirSync(join(d, "team"));
  for (let i = 0; i < 7; i++) writeFileSync(join(d, "team", `t-${i}.json`), doc(`t-${i}`, i));
  writeFileSync(join(d, "team", "t-0.json.lock"), "");
  cpSync(fx("amacs/valid/agent-home"), join(d, "home-a"), { recursive: true });
  mkdirSync(join(d, "home-a", ".git"), { recursive: true });
  writeFileSync(join(d, "home-a", ".git", "HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(d, ".git"));
  mkdirSync(join(d, "empty"));
  return d;
}

interface Scanned {
  records: Array<{ namespace: string; threadId: string; text: string; source?: string }>;
  passedOver: ReturnType<NonNullable<Saver["passedOver"]>>;
}

async function scanAll(uri: string, namespace?: string, batchSize = 5): Promise<Scanned> {
  const s = await openSaver(uri);
  const records: Scanned["records"] = [];
  for await (const b of s.scan({ namespace, batchSize })) records.push(...b);
  const passedOver = s.passedOver!(namespace);
  await s.close();
  return { records, passedOver };
}

/** The scan with the files read here only (the synchronous scan), and with the given read-ahead settings. */
async function bothWays(uri: string, namespace: string | undefined, ahead: Partial<typeof READ_AHEAD>, batchSize = 5) {
  Object.assign(READ_AHEAD, defaults, { threshold: Infinity });
  const here = await scanAll(uri, namespace, batchSize);
  Object.assign(READ_AHEAD, defaults, ahead);
  const files = readAheadStats.files;
  const readers = readAheadStats.readers;
  const there = await scanAll(uri, namespace, batchSize);
  return { here, there, aheadFiles: readAheadStats.files - files, readers: readAheadStats.readers - readers };
}

const reasonOf = (s: Scanned, file: string) => s.passedOver.ignored.find((e) => e.path.endsWith(`/${file}`))?.reason;

describe("read-ahead scan = synchronous scan", () => {
  const d = mixedFolder(40);

  it("the synchronous scan classifies the mixed folder as folder-scan.ts says (the reference below)", async () => {
    Object.assign(READ_AHEAD, { threshold: Infinity });
    const s = await scanAll(`file:${d}`);
    const ids = s.records.map((r) => r.threadId);
    for (let i = 0; i < 40; i++) expect(ids).toContain(`thread-${i}`);
    expect(ids).toEqual(
      expect.arrayContaining([
        "123456789",
        "session.v0.18",
        "sess-1",
        "truncated",
        "not-json",
        "lost thread/1",
        "home-a",
      ]),
    );
    expect(ids.filter((id) => id === "thread-3")).toHaveLength(1);
    expect(s.records.find((r) => r.threadId === "thread-3")!.text).toBe(doc("thread-3", 3));
    // #27 item 2: a file of a checkpoint's name that cannot be read is a rejected record, not "not a checkpoint"
    expect(
      s.passedOver.rejected.map((r) => [r.path.slice(d.length + 1), r.threadId, r.reason.replace(/'.*/, "")]).sort(),
    ).toEqual([
      ["copy-of-thread-3.json", "thread-3", "thread "],
      ["loop.json", "loop", "cannot read it: ELOOP"],
    ]);
    expect(reasonOf(s, "gone.json")).toBe("removed while the folder was read");
    expect(reasonOf(s, "folder-link.json")).toBe("unreadable: EISDIR");
    expect(reasonOf(s, "loop.json")).toBeUndefined();
    expect(reasonOf(s, "lines.jsonl")).toBe("JSON lines, but not a yoagent session");
    expect(reasonOf(s, "settings.json")).toBe("JSON, but not a checkpoint of any supported format");
    expect(reasonOf(s, "notes.txt")).toBe("not a checkpoint file");
    expect(reasonOf(s, "sess-1.json.lock")).toMatch(/lock file/);
    expect(reasonOf(s, "sess-1.json.tmp.4242.1767225600000000000")).toMatch(/temporary file/);
    expect(reasonOf(s, ".git")).toBe("a git folder");
    expect(reasonOf(s, "empty")).toBe("a folder with no checkpoints");
    expect(reasonOf(s, "home-a/.git")).toMatch(/git folder/);
  });

  for (const [name, ahead] of [
    ["every file read ahead, two entries a request", { threshold: 0, group: 2 }],
    ["the switch mid-folder, after 3 files read here", { threshold: 3, group: 4 }],
    ["the switch after 30 files, 7 entries a request", { threshold: 30, group: 7 }],
  ] as const) {
    it(`${name}: the same records, ignored and rejected entries, in the same order`, async () => {
      const r = await bothWays(`file:${d}`, undefined, ahead);
      expect(r.readers).toBe(1);
      expect(r.aheadFiles).toBeGreaterThan(0); // the worker read some files (the switch comes once it has started)
      expect(r.there).toEqual(r.here);
    });
  }

  it("a namespace sub-folder, and a batch size that splits the read-ahead groups", async () => {
    const r = await bothWays(`file:${d}`, "team", { threshold: 0, group: 3 }, 2);
    expect(r.aheadFiles).toBe(7);
    expect(r.there.records.map((x) => x.threadId)).toEqual(expect.arrayContaining(["t-0", "t-6"]));
    expect(r.there).toEqual(r.here);
  });

  it("a store folder that is itself an amacs home: one thread, nothing read ahead", async () => {
    const r = await bothWays(`file:${join(d, "home-a")}`, undefined, { threshold: 0 });
    expect(r.readers).toBe(0);
    expect(r.there.records.map((x) => x.threadId)).toEqual(["home-a"]);
    expect(r.there).toEqual(r.here);
  });

  it("a folder below the threshold never starts a worker", async () => {
    const r = await bothWays(`file:${d}`, undefined, { threshold: 1000 });
    expect(r.readers).toBe(0);
    expect(r.there).toEqual(r.here);
  });
});

/** The threads of this process (a worker is one more while it runs). */
const threads = () => readdirSync("/proc/self/task").length;

describe("files removed while the folder is read ahead", () => {
  it("each file is a record with its text or 'removed while the folder was read'; none is lost or doubled", async () => {
    const n = 600;
    const d = tmp();
    for (let i = 0; i < n; i++) writeFileSync(join(d, `thread-${i}.json`), doc(`thread-${i}`, i));
    Object.assign(READ_AHEAD, { threshold: 0, group: 16 });
    const s = await openSaver(`file:${d}`);
    const records = new Map<string, string>();
    const it = s.scan({ batchSize: 50 })[Symbol.asyncIterator]();
    const first = await it.next();
    for (const r of first.value!) records.set(r.threadId, r.text);
    for (let i = 0; i < n; i++) unlinkSync(join(d, `thread-${i}.json`));
    for (let r = await it.next(); !r.done; r = await it.next())
      for (const x of r.value) expect(records.has(x.threadId)).toBe(false), records.set(x.threadId, x.text);
    const removed = s.passedOver!()
      .ignored.filter((e) => e.reason === "removed while the folder was read")
      .map((e) => e.path.slice(d.length + 1));
    await s.close();
    const read = [...records.keys()].filter((id) => id.startsWith("thread-"));
    for (const id of read) expect(records.get(id)).toBe(doc(id, Number(id.slice(7))));
    expect(removed.filter((f) => f.startsWith("thread-")).length).toBeGreaterThan(0);
    expect(read.filter((id) => removed.includes(`${id}.json`))).toEqual([]);
    expect(read.length + removed.filter((f) => f.startsWith("thread-")).length).toBeLessThanOrEqual(n);
    expect(read.length).toBeGreaterThanOrEqual(50);
  });
});

describe("the reader worker ends with the scan", () => {
  const d = mixedFolder(300);

  it("at the end of the scan, and at an early return()", async () => {
    Object.assign(READ_AHEAD, { threshold: 0, group: 8 });
    const before = threads();
    await scanAll(`file:${d}`, undefined, 20);
    expect(threads()).toBe(before);
    const s = await openSaver(`file:${d}`);
    const it = s.scan({ batchSize: 20 })[Symbol.asyncIterator]();
    const readers = readAheadStats.readers;
    await it.next();
    await it.next();
    expect(readAheadStats.readers).toBe(readers + 1);
    expect(threads()).toBe(before + 1);
    await it.return!(undefined);
    expect(threads()).toBe(before);
    await s.close();
  });

  it("at the store's close() when a scan is given up without return()", async () => {
    Object.assign(READ_AHEAD, { threshold: 0, group: 8 });
    const before = threads();
    const s = await openSaver(`file:${d}`);
    const it = s.scan({ batchSize: 20 })[Symbol.asyncIterator]();
    await it.next();
    await it.next();
    expect(threads()).toBe(before + 1);
    await s.close();
    expect(threads()).toBe(before);
  });

  it("when the worker fails, this thread reads the rest: the same entries", async () => {
    const track = new Set<{ close(): Promise<void> }>();
    const listing = (): Iterator<Listed> =>
      readdirSync(d, { withFileTypes: true })
        .map((e) => ({ name: e.name, dir: e.isDirectory() }))
        [Symbol.iterator]();
    const all = async (kill: boolean) => {
      const out = [];
      const files = readAheadStats.files;
      for await (const es of readAheadEntries(d, listing(), {
        threshold: 0,
        group: 8,
        window: 2,
        track,
        waitForReader: true,
      })) {
        out.push(...es);
        // a reader killed from outside (as an out-of-memory end would): its requests are read here
        if (kill && readAheadStats.files - files >= 16)
          for (const r of track)
            await (r as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      }
      return { out, ahead: readAheadStats.files - files };
    };
    const whole = await all(false);
    const killed = await all(true);
    expect(whole.ahead).toBeGreaterThan(250);
    expect(killed.ahead).toBeLessThan(whole.ahead);
    expect(killed.out).toEqual(whole.out);
    expect(track.size).toBe(0);
  });
});

describe("no reader keeps the process alive (a child process on the built package)", () => {
  const d = mixedFolder(2000);
  const dist = (p: string) => JSON.stringify(join(root, "dist", p));
  const run = (body: string) => {
    if (!existsSync(join(root, "dist", "savers", "folder-read-ahead.js")))
      execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "ignore" });
    const code = `
      import { openSaver } from ${dist("savers/index.js")};
      import { migrate } from ${dist("engines/ckpt/migrate.js")};
      import { readAheadStats } from ${dist("savers/folder-read-ahead.js")};
      import { READ_AHEAD } from ${dist("savers/file.js")};
      Object.assign(READ_AHEAD, { threshold: 0, when: "always", waitForReader: true });
      import { readdirSync } from "node:fs";
      const threads = () => readdirSync("/proc/self/task").length;
      ${body}`;
    return spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8", timeout: 20_000 });
  };

  it("a scan given up mid-folder (no return(), no close()): the process exits by itself", () => {
    const r = run(`
      const s = await openSaver(${JSON.stringify(`file:${d}`)});
      const it = s.scan({ batchSize: 100 })[Symbol.asyncIterator]();
      for (let i = 0; i < 3; i++) await it.next();
      console.log(JSON.stringify(readAheadStats));`);
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).readers).toBe(1);
    expect(JSON.parse(r.stdout).files).toBeGreaterThan(0); // the reader read (it did not fail to start)
  });

  it("a migration stopped early (--strict at a rejected record) ends its reader", () => {
    const bad = tmp();
    for (let i = 0; i < 2000; i++)
      writeFileSync(
        join(bad, `thread-${i}.json`),
        i % 100 === 7 ? `{"threadId": "thread-${i}",` : doc(`thread-${i}`, i),
      );
    const r = run(`
      const s = await openSaver(${JSON.stringify(`file:${bad}`)});
      const t = await openSaver("memory:read-ahead-strict");
      const before = threads();
      const m = await migrate(s, t, { batchSize: 100, strict: true });
      console.log(JSON.stringify({ aborted: m.aborted, written: m.written, readers: readAheadStats.readers, files: readAheadStats.files, leftOver: threads() - before }));`);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.aborted).toMatch(/--strict/);
    expect(out.written).toBeLessThan(2000);
    expect(out.readers).toBe(1);
    expect(out.files).toBeGreaterThan(0);
    expect(out.leftOver).toBe(0);
  });
});

describe("a scan read on this thread turns the event loop between groups of files", () => {
  it("a callback queued before the scan runs before the scan of a 1,000-file folder ends (a migration's writes get their replies meanwhile)", async () => {
    Object.assign(READ_AHEAD, { when: "never" as const });
    const d = tmp();
    for (let i = 0; i < 1000; i++) writeFileSync(join(d, `t-${i}.json`), doc(`t-${i}`));
    const s = await openSaver(`file:${d}`, { readOnly: true });
    try {
      let seen = 0;
      let seenWhenCalled: number | undefined;
      setImmediate(() => (seenWhenCalled = seen));
      for await (const batch of s.scan({ batchSize: 2000 })) seen += batch.length; // one batch: no await of the consumer's between files
      expect(seen).toBe(1000);
      expect(seenWhenCalled).toBeDefined();
      expect(seenWhenCalled!).toBe(0); // called while the scan was still reading: its batch was not yet given
    } finally {
      await s.close();
    }
  });
});

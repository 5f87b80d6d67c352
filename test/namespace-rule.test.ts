/**
 * #15 item 15: one namespace rule for every command, on each of ckpt's own stores that has namespaces (file, SQLite,
 * Redis, PostgreSQL): the URI's ?namespace=, else --namespace, else every namespace (ls) or 'default' (one thread).
 * A thread that is only in another namespace is an input error (exit 3) naming the namespace(s) where it is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";

const ROOT = join(import.meta.dirname, "..");
const run_ = randomBytes(4).toString("hex");
const PREFIX = `ckpt-ns-${run_}:`;
const SCHEMA = `ckpt_ns_${run_}`;
const BASE = JSON.parse(
  readFileSync(join(ROOT, "fixtures/savers/deepagent-filesaver/user_42_session_1.json"), "utf8"),
) as Record<string, unknown>;

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "ckpt-ns-"))));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const { Redis } = await import("ioredis");
  const c = new Redis("redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 1 });
  await c.connect().catch(() => undefined);
  if (c.status === "ready") {
    const keys = await c.keys(`${PREFIX}*`); // test cleanup only
    if (keys.length) await c.del(...keys);
  }
  c.disconnect();
  const pg = (await import("pg")).default;
  const p = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
  await p.connect().catch(() => undefined);
  await p.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`).catch(() => undefined);
  await p.end().catch(() => undefined);
});

async function ckpt(...argv: string[]) {
  let out = "";
  let err = "";
  const code = await main(argv, {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: { NO_COLOR: "1", XDG_STATE_HOME: join(dir, "state"), HOME: dir },
    cwd: dir,
  });
  return { code, out, err };
}

/** `uri` with a query parameter added. */
const withNs = (uri: string, ns: string) => `${uri}${uri.includes("?") ? "&" : "?"}namespace=${ns}`;

const STORES: Array<[string, () => string]> = [
  ["file", () => `file:${join(dir, "fs")}`],
  ["sqlite", () => `sqlite:${join(dir, "s.db")}`],
  ["redis", () => `redis://127.0.0.1:6379?prefix=${encodeURIComponent(PREFIX)}`],
  ["postgres", () => `postgres://postgres@127.0.0.1:5432/test?schema=${SCHEMA}`],
];

describe.each(STORES)("%s: one namespace rule", (kind, uriOf) => {
  let uri: string;
  beforeAll(async () => {
    uri = uriOf();
    // namespace alpha: thread "both"; namespace beta: "both" (step 2) and "only-beta"
    const a = join(dir, `src-${kind}-a`);
    const b = join(dir, `src-${kind}-b`);
    mkdirSync(a);
    mkdirSync(b);
    writeFileSync(join(a, "both.json"), JSON.stringify({ ...BASE, threadId: "both", step: 1 }, null, 2));
    writeFileSync(join(b, "both.json"), JSON.stringify({ ...BASE, threadId: "both", step: 2 }, null, 2));
    writeFileSync(join(b, "only-beta.json"), JSON.stringify({ ...BASE, threadId: "only-beta", step: 7 }, null, 2));
    for (const [src, ns] of [
      [a, "alpha"],
      [b, "beta"],
    ] as const) {
      const r = await ckpt("migrate", "--from", `file:${src}`, "--to", withNs(uri, ns), "-q");
      expect(r.code, `${kind} must be running for this test: ${r.err}`).toBe(0);
    }
  }, 60_000);

  it("ls: every namespace by default; the URI's namespace or --namespace lists only that one", async () => {
    const all = JSON.parse((await ckpt("ls", uri, "--json")).out) as Array<{ namespace: string; threadId: string }>;
    expect(all.map((r) => `${r.namespace}#${r.threadId}`).sort()).toEqual([
      "alpha#both",
      "beta#both",
      "beta#only-beta",
    ]);
    for (const argv of [
      ["ls", withNs(uri, "alpha"), "--json"],
      ["ls", uri, "--namespace", "alpha", "--json"],
    ]) {
      const rows = JSON.parse((await ckpt(...argv)).out) as Array<{ namespace: string; threadId: string }>;
      expect(rows.map((r) => `${r.namespace}#${r.threadId}`)).toEqual(["alpha#both"]);
    }
    const none = await ckpt("ls", withNs(uri, "gamma"));
    expect(none.code).toBe(0);
    expect(none.out).toContain("no threads in namespace 'gamma' (threads are in namespace 'alpha', 'beta')");
    const twice = await ckpt("ls", withNs(uri, "alpha"), "--namespace", "beta");
    expect(twice.code).toBe(2);
    expect(twice.err).toContain("namespace given twice: 'alpha' in the URI and 'beta' by --namespace");
  });

  // every command that reads one thread, with what it prints for namespace beta's "only-beta" (step 7)
  const READERS: Array<[string, (t: string) => string[], RegExp]> = [
    ["show", (t) => ["show", t], /step 7/],
    ["show --json", (t) => ["show", t, "--json"], /"step": 7/],
    ["log", (t) => ["log", t], /1 checkpoint/],
    ["validate", (t) => ["validate", t], /1 valid/],
    ["convert", (t) => ["convert", t, "-t", "deepagent"], /"step": 7/],
    ["view", (t) => ["view", t, "-o", "-"], /<html/i],
    ["diff", (t) => ["diff", t, t], /Identical\./],
  ];

  it.each(READERS)(
    "%s: the URI's namespace, else --namespace, else 'default' with an error naming where the thread is",
    async (_name, argv, printed) => {
      const viaUri = await ckpt(...argv(`${withNs(uri, "beta")}#only-beta`));
      expect(viaUri.code, viaUri.err).toBe(0);
      expect(viaUri.out).toMatch(printed);
      const viaFlag = await ckpt(...argv(`${uri}#only-beta`), "--namespace", "beta");
      expect(viaFlag.code, viaFlag.err).toBe(0);
      expect(viaFlag.out).toMatch(printed);
      const missing = await ckpt(...argv(`${uri}#only-beta`));
      expect(missing.code).toBe(3);
      expect(missing.out + missing.err).toContain(
        "no thread 'only-beta' in namespace 'default'; it is in namespace 'beta': add ?namespace=beta to the URI or pass --namespace beta",
      );
      const both = await ckpt(...argv(`${uri}#both`), "--namespace", "gamma");
      expect(both.out + both.err).toContain(
        "no thread 'both' in namespace 'gamma'; it is in namespace 'alpha', 'beta'",
      );
      const twice = await ckpt(...argv(`${withNs(uri, "alpha")}#both`), "--namespace", "beta");
      expect(twice.code).toBe(2);
      expect(twice.err).toContain("namespace given twice");
    },
  );

  it("migrate: the URI's namespace, else --namespace, else every namespace", async () => {
    for (const [from, extra, expected] of [
      [withNs(uri, "beta"), [], 2],
      [uri, ["--namespace", "alpha"], 1],
      [uri, [], 3],
    ] as const) {
      const to = `sqlite:${join(dir, `m-${kind}-${randomBytes(3).toString("hex")}.db`)}`;
      const r = await ckpt("migrate", "--from", from, "--to", to, ...extra, "-q");
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`read ${expected}, written ${expected}`);
    }
  });
});

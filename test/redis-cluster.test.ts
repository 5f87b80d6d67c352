/**
 * The Redis saver on a real 3-master Redis Cluster started for this file (test/helpers/redis-cluster.ts): the saver
 * conformance suite, the hash-slot function against the server's CLUSTER KEYSLOT, cluster detection, and a
 * file → cluster → file round trip of 3,000 checkpoints that `ckpt ls` lists in full.
 */
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { Cluster, Redis } from "ioredis";
import { startRedisCluster, type TestCluster } from "./helpers/redis-cluster.js";
import { saverConformance } from "./conformance/saver.js";
import { openSaver } from "../src/savers/index.js";
import { keySlot } from "../src/savers/redis-kv.js";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startRedisCluster(3);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

function io(cwd: string): CliIO & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => ((out += s), true) },
    stderr: { write: (s: string) => ((err += s), true) },
    stdin: Readable.from([]),
    env: {},
    cwd,
    out: () => out,
    err: () => err,
  };
}

saverConformance({
  name: "redis cluster (3 masters, detected)",
  open: () => openSaver(`${cluster.url}?prefix=conf-a:`),
});
saverConformance({
  name: "redis cluster (?cluster=1)",
  open: () => openSaver(`${cluster.url}?cluster=1&prefix=conf-b:`),
});

describe("redis cluster", () => {
  it("computes the hash slot the server does (CRC16, hash tags, UTF-8)", async () => {
    const c = new Redis(cluster.ports[0]!, "127.0.0.1");
    try {
      const keys = [
        "",
        "a",
        "default:checkpoints:thread-0001",
        "user:42/session#1",
        "{user1000}.following",
        "foo{}{bar}",
        "foo{{bar}}zap",
        "{}x",
        "é😀日本",
        "x".repeat(1000),
      ];
      for (const k of keys) expect(keySlot(k), k).toBe(await c.cluster("KEYSLOT", k));
    } finally {
      c.disconnect();
    }
  });

  it("refuses cluster=1 on a server that is not a cluster, and a bad cluster= value", async () => {
    const t = io(tmpdir());
    expect(await main(["ls", "redis://127.0.0.1:6379?cluster=1"], t)).toBe(4);
    expect(t.err()).toMatch(/is not a Redis Cluster/);
    const u = io(tmpdir());
    expect(await main(["ls", `${cluster.url}?cluster=maybe`], u)).toBe(2);
    expect(u.err()).toMatch(/cluster=maybe: expected cluster=1/);
  });

  it("file → cluster → file round trip of 3,000 checkpoints: every key on its own slot, spread over all masters, ls lists all", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-cluster-rt-"));
    const src = join(work, "src");
    const out = join(work, "out");
    const base = JSON.parse(
      readFileSync(
        join(import.meta.dirname, "..", "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"),
        "utf8",
      ),
    );
    const { mkdirSync } = await import("node:fs");
    mkdirSync(src);
    const ids = Array.from({ length: 3000 }, (_, i) => `thread-${String(i).padStart(4, "0")}`);
    for (const id of ids)
      writeFileSync(
        join(src, `${id}.json`),
        JSON.stringify({ ...base, threadId: id, step: Number(id.slice(7)) }, null, 2),
      );
    const uri = `${cluster.url}?cluster=1&prefix=rt:`;
    try {
      const t1 = io(work);
      expect(await main(["migrate", "--from", `file:${src}`, "--to", uri, "-q"], t1), t1.err() + t1.out()).toBe(0);
      expect(t1.out()).toMatch(/written 3,000, skipped 0, rejected 0, verified 3,000/);
      // the KeyValueStoreSaver layout, compact JSON, readable with a plain cluster client; keys on every master
      const c = new Cluster([{ host: "127.0.0.1", port: cluster.ports[0]! }]);
      try {
        expect(JSON.parse((await c.get("rt:default:checkpoints:thread-1234"))!)).toEqual({
          ...base,
          threadId: "thread-1234",
          step: 1234,
        });
        expect(await c.get("rt:default:checkpoints:thread-1234")).toBe(
          JSON.stringify({ ...base, threadId: "thread-1234", step: 1234 }),
        );
        const sizes = await Promise.all(c.nodes("master").map(async (m) => (await m.keys("rt:*")).length)); // test-only KEYS on a small node
        expect(sizes.length).toBe(3);
        expect(sizes.every((s) => s > 500)).toBe(true);
        expect(sizes.reduce((a, b) => a + b, 0)).toBe(3000);
      } finally {
        c.disconnect();
      }
      const t2 = io(work);
      expect(await main(["migrate", "--from", uri, "--to", `file:${out}`, "-q"], t2), t2.err() + t2.out()).toBe(0);
      expect(readdirSync(out).sort()).toEqual(ids.map((id) => `${id}.json`));
      for (const id of [ids[0]!, ids[1234]!, ids[2999]!])
        expect(readFileSync(join(out, `${id}.json`), "utf8")).toBe(readFileSync(join(src, `${id}.json`), "utf8"));
      for (const id of ids)
        expect(JSON.parse(readFileSync(join(out, `${id}.json`), "utf8")).step).toBe(Number(id.slice(7)));
      const t3 = io(work);
      expect(await main(["ls", uri, "--json"], t3)).toBe(0);
      const rows = JSON.parse(t3.out()) as Array<{ threadId: string; step: number; format: string }>;
      expect(rows.map((r) => r.threadId)).toEqual(ids);
      expect(rows.every((r) => r.format === "deepagent" && r.step === Number(r.threadId.slice(7)))).toBe(true);
      // detected without ?cluster=1 as well
      const s = await openSaver(`${cluster.url}?prefix=rt:`);
      expect(await s.count()).toBe(3000);
      await s.close();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 180_000); // two migrations of 3,000 through a 3-master cluster on this machine: ~10 s quiet, over 60 s at load 25
});

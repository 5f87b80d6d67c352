/**
 * A Redis that accepts connections but never answers (hung, paused, or something else on the port) is a store error
 * (exit 4) naming the store — password redacted — within the time-out, never a hang: on connecting (a bare TCP
 * listener in the test, with the default time-out and with ?timeout=), and mid-migration (a real TCP proxy in front
 * of the real server that stops forwarding after some traffic), where the journal is named for --resume.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { main } from "../src/cli/main.js";
import type { CliIO } from "../src/cli/io.js";
import { startProxy } from "./helpers/tcp-proxy.js";
import { deleteRedisKeys } from "./helpers/redis-keys.js";

const root = join(import.meta.dirname, "..");
const prefix = `ckpt-timeout-${randomBytes(4).toString("hex")}:`;

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

/** A TCP listener on 127.0.0.1 that accepts every connection and never sends a byte. */
async function silentServer(): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on("error", () => undefined);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    accepted: () => accepted,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

// The tests time the time-out, not the first loading of the modules a Redis run needs (which a loaded machine running
// other test files beside this one can take seconds to transform and load): a refused connection loads them first.
beforeAll(async () => {
  await main(["ls", "redis://127.0.0.1:1?timeout=1"], io(tmpdir()));
  await import("../src/cli/commands/migrate.js");
}, 60_000);

afterAll(async () => {
  await deleteRedisKeys(prefix);
});

const oneLine = (s: string) => {
  expect(s.trim().split("\n")).toHaveLength(1);
  expect(s).not.toMatch(/\n\s+at /);
};

describe("a Redis that never answers", () => {
  it("on connecting, ?timeout=1: exit 4 after about a second, naming the store with the password redacted", async () => {
    const server = await silentServer();
    try {
      const t = io(tmpdir());
      const t0 = Date.now();
      const code = await main(["ls", `redis://:hung-secret-41@127.0.0.1:${server.port}?timeout=1`], t);
      const secs = (Date.now() - t0) / 1000;
      expect(code, t.err()).toBe(4);
      expect(server.accepted()).toBeGreaterThan(0); // it did connect: the server, not the network, is silent
      expect(secs).toBeGreaterThanOrEqual(0.9);
      expect(secs).toBeLessThan(5);
      expect(t.err()).toContain(`cannot connect to Redis at redis://:***@127.0.0.1:${server.port}?timeout=1`);
      expect(t.err()).toMatch(/no answer within 1 s/);
      expect(t.err() + t.out()).not.toContain("hung-secret-41");
      oneLine(t.err());
    } finally {
      await server.close();
    }
  });

  it("on connecting, no ?timeout=: the default (10 s) ends it, exit 4", async () => {
    const server = await silentServer();
    try {
      const t = io(tmpdir());
      const t0 = Date.now();
      const code = await main(["ls", `redis://127.0.0.1:${server.port}`], t);
      const secs = (Date.now() - t0) / 1000;
      expect(code, t.err()).toBe(4);
      expect(secs).toBeGreaterThanOrEqual(9.5);
      expect(t.err()).toMatch(/cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+: no answer within 10 s/);
      oneLine(t.err());
    } finally {
      await server.close();
    }
  }, 30_000);

  it("mid-migration (the server stops answering after some traffic): exit 4 naming the store and the journal", async () => {
    const src = mkdtempSync(join(tmpdir(), "ckpt-timeout-src-"));
    const base = JSON.parse(
      readFileSync(join(root, "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json"), "utf8"),
    );
    for (let i = 0; i < 200; i++)
      writeFileSync(join(src, `t-${i}.json`), JSON.stringify({ ...base, threadId: `t-${i}`, step: i }, null, 2));
    const work = mkdtempSync(join(tmpdir(), "ckpt-timeout-"));
    const journal = join(work, "mig.journal");
    // stall after ~40 KB client → server: connected, a few batches of 10 written, then silence
    const proxy = await startProxy(6379, 40_000, { stall: true });
    try {
      const t = io(work);
      const t0 = Date.now();
      const code = await main(
        [
          "migrate",
          "--from",
          `file:${src}`,
          "--to",
          `redis://:mid-secret-42@127.0.0.1:${proxy.port}?prefix=${prefix}&timeout=1`,
          "--batch-size",
          "10",
          "--journal",
          journal,
          "-q",
        ],
        t,
      );
      expect(proxy.cut()).toBe(true);
      expect(code, t.err()).toBe(4);
      expect((Date.now() - t0) / 1000).toBeLessThan(10);
      expect(t.err()).toMatch(
        /cannot (write|read) \(redis:\/\/:\*\*\*@127\.0\.0\.1:\d+\?prefix=[^)]*\): no answer within 1 s/,
      );
      expect(t.err()).toContain(journal);
      expect(t.err() + t.out()).not.toContain("mid-secret-42");
      oneLine(t.err());
      expect(existsSync(journal)).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

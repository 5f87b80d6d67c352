/**
 * #27 "nothing leaked": a password in a store URI or a model provider's URL is never printed, in any reporter; and a
 * lone Redis user-info (`redis://TOKEN@host`), redacted like a password, is sent as one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";
import { freePorts } from "./helpers/redis-cluster.js";
import { startRedis, type TestRedis } from "./helpers/redis-server.js";
import { startStubLlmServer } from "./helpers/stub-llm-server.js";

const ROOT = join(import.meta.dirname, "..");
let dir: string;
let redis: TestRedis;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-secrets-"));
  redis = await startRedis({ password: "RightPw42" });
}, 30_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await redis?.stop();
});

describe("#27 item 17: validate never prints a store URI's password, in any reporter", () => {
  it("an unreachable and a refusing password-protected Redis: text, json, junit, sarif, github", async () => {
    const [closed] = await freePorts(1);
    for (const uri of [`redis://:WrongPwX7@127.0.0.1:${closed}`, `redis://:WrongPwX7@127.0.0.1:${redis.port}`]) {
      for (const reporter of ["text", "json", "junit", "sarif", "github"]) {
        const file = join(dir, `report.${reporter}`);
        const r = await runCli(["validate", uri, "-r", reporter, "-r", `${reporter}=${file}`], { cwd: dir });
        expect(r.code, `${reporter}: ${r.err}`).toBe(4);
        const printed = r.out + r.err + readFileSync(file, "utf8");
        expect(printed, reporter).not.toContain("WrongPwX7");
        expect(printed, reporter).toContain(`redis://:***@127.0.0.1:`);
      }
    }
  }, 60_000);
});

describe("#27 item 18: provider URLs are redacted; redis://TOKEN@host authenticates with the token", () => {
  const fixture = join(ROOT, "fixtures", "replay", "tools.ckpt.json");

  it("replay --provider openai:http://user:S3cr3t@host/v1 that cannot be reached: exit 4, the password never shown", async () => {
    const [closed] = await freePorts(1);
    const r = await runCli(
      [
        "replay",
        "continue",
        fixture,
        "--prompt",
        "hi",
        "--provider",
        `openai:http://user:S3cr3t@127.0.0.1:${closed}/v1`,
        "--model",
        "m",
        "-o",
        join(dir, "next.json"),
      ],
      { cwd: dir },
    );
    expect(r.code, r.err).toBe(4);
    expect(r.err + r.out).not.toContain("S3cr3t");
    expect(r.err).toContain(`cannot reach http://user:***@127.0.0.1:${closed}/v1`);
    const unknown = await runCli([
      "replay",
      "continue",
      fixture,
      "--prompt",
      "hi",
      "--provider",
      "x:http://u:S3cr3t@h",
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.err).not.toContain("S3cr3t");
  });

  it("the URL's credentials go as Basic authentication, never in the request line", async () => {
    const stub = await startStubLlmServer();
    try {
      stub.enqueue({ text: "Hello.", usage: { input: 1, output: 1 } });
      const base = stub.url.replace("http://", "http://user:S3cr3t@");
      const r = await runCli(
        [
          "replay",
          "continue",
          fixture,
          "--prompt",
          "hi",
          "--provider",
          `openai:${base}/v1`,
          "--model",
          "m",
          "-o",
          join(dir, "next2.json"),
          "-q",
        ],
        { cwd: dir },
      );
      expect(r.code, r.err).toBe(0);
      expect(stub.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from("user:S3cr3t").toString("base64")}`);
      expect(readFileSync(join(dir, "next2.json"), "utf8")).not.toContain("S3cr3t");
    } finally {
      await stub.close();
    }
  });

  it("redis://TOKEN@host logs in with TOKEN as the password (and a wrong one is refused, redacted)", async () => {
    const ok = await runCli(["ls", `redis://RightPw42@127.0.0.1:${redis.port}`]);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toContain("no threads");
    expect(ok.out + ok.err).not.toContain("RightPw42");
    const bad = await runCli(["ls", `redis://WrongPwX7@127.0.0.1:${redis.port}`]);
    expect(bad.code).toBe(4);
    expect(bad.err).toMatch(/WRONGPASS|invalid username-password/);
    expect(bad.err).not.toContain("WrongPwX7");
  });
});

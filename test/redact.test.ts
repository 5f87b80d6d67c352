/**
 * #15 item 3 and #13's one redactor: secrets never printed, whichever part of a URI holds them — in messages,
 * --json, journals. A URI without a password is printed as it is (no ':***' added).
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redactText, redactUri } from "../src/base/redact.js";
import { redactUri as redact } from "../src/base/redact.js";
import { main } from "../src/cli/main.js";
import { cliIO } from "./helpers/cli-io.js";

const root = join(import.meta.dirname, "..");
const samples = join(root, "fixtures", "savers", "deepagent-filesaver");

describe("the one URI redactor", () => {
  const cases: Array<[string, string]> = [
    ["redis://user:s3cret@host:6379/0", "redis://user:***@host:6379/0"],
    ["redis://TOKEN123@host:6379", "redis://***@host:6379"],
    ["rediss://:pw@host", "rediss://:***@host"],
    ["postgres://alice@host/db", "postgres://alice@host/db"],
    ["postgres://alice:pa%40ss@host/db?sslmode=require", "postgres://alice:***@host/db?sslmode=require"],
    ["postgres://host/db?password=hunter2&schema=s", "postgres://host/db?password=***&schema=s"],
    ["postgres://host/db?user=u&PASSWORD=x#t1", "postgres://host/db?user=u&PASSWORD=***#t1"],
    ["redis://host?namespace=a&access_token=abc&prefix=p", "redis://host?namespace=a&access_token=***&prefix=p"],
    ["sqlite:./c.db?api_key=k1", "sqlite:./c.db?api_key=***"],
    ["file:./dir", "file:./dir"],
    ["redis://host:6379", "redis://host:6379"],
    [
      "postgres://host/db?sslkey=/path/k.pem&sslmode=verify-full",
      "postgres://host/db?sslkey=/path/k.pem&sslmode=verify-full",
    ],
  ];
  for (const [input, want] of cases) it(`${input} → ${want}`, () => expect(redactUri(input)).toBe(want));

  it("is the same function the library exports as redact", () => expect(redact).toBe(redactUri));

  it("redacts URIs quoted inside a message", () => {
    expect(redactText("connect failed for redis://T0K@h:1 (postgres://u:p@h/db?password=q)")).toBe(
      "connect failed for redis://***@h:1 (postgres://u:***@h/db?password=***)",
    );
  });
});

describe("#15 item 3: secrets never printed", () => {
  it("a password-only Redis URL and a password query parameter never appear in messages", async () => {
    const t = cliIO();
    expect(await main(["ls", "redis://TOKEN-abc-123@127.0.0.1:1"], t)).toBe(4);
    expect(t.err()).toContain("redis://***@127.0.0.1:1");
    expect(t.err()).not.toContain("TOKEN-abc-123");
    const t2 = cliIO();
    expect(await main(["ls", "postgres://127.0.0.1:1/test?password=pw-in-query-9"], t2)).toBe(4);
    expect(t2.err()).toContain("password=***");
    expect(t2.err()).not.toContain("pw-in-query-9");
    const t3 = cliIO();
    expect(await main(["ls", "postgres://alice@127.0.0.1:1/test"], t3)).toBe(4);
    expect(t3.err()).toContain("postgres://alice@127.0.0.1:1/test");
    expect(t3.err()).not.toContain(":***");
  }, 20_000);

  it("--json summaries carry the redacted URI (journals: see migrate-trust.test.ts)", async () => {
    const work = mkdtempSync(join(tmpdir(), "ckpt-redact-"));
    const schema = `ckpt_redact_${randomBytes(4).toString("hex")}`;
    // trust auth ignores the password, so this URI works and still holds a secret
    const to = `postgres://postgres:pw-user-7@127.0.0.1:5432/test?schema=${schema}&password=pw-query-8`;
    const state = join(work, "state");
    const t = cliIO({ cwd: work, env: { XDG_STATE_HOME: state } });
    expect(await main(["migrate", "--from", samples, "--to", to, "--json"], t), t.err()).toBe(0);
    const summary = JSON.parse(t.out().trim().split("\n").pop()!);
    expect(summary.to).toBe(`postgres://postgres:***@127.0.0.1:5432/test?schema=${schema}&password=***`);
    expect(t.out() + t.err()).not.toMatch(/pw-user-7|pw-query-8/);
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/test" });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  }, 30_000);
});

/**
 * #42 item 12: a password holding an unencoded '#', '/', '?' or '@' is never printed, by any command, on stdout or
 * stderr — including the `file` fields of `validate -r json` and `-r sarif` (uploaded to code-scanning services).
 * The user-info is redacted before any parse can cut it (everything between '//' and the last '@' before the host),
 * and the user is told to percent-encode. Percent-encoded, the same password is not printed either (the connection
 * fails: nothing listens on port 1). No store is reached: every URI points at 127.0.0.1:1.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "./helpers/cli-io.js";

const dir = mkdtempSync(join(tmpdir(), "ckpt-secret-"));
/** every part of the password: none may be printed */
const PARTS = ["S3cret", "Pw2"];

const uris = (pw: string) => [
  `postgres://u:${pw}@127.0.0.1:1/postgres`,
  `postgresql://u:${pw}@127.0.0.1:1/postgres?schema=s`,
  `redis://:${pw}@127.0.0.1:1/0`,
  `redis://u:${pw}@127.0.0.1:1`,
];

/** Each command, given the store URI `s` (a store, or a thread address of it). */
const commands: Array<[string, (s: string) => string[]]> = [
  ["ls", (s) => ["ls", s]],
  ["ls <thread>", (s) => ["ls", `${s}#t1`]],
  ["stats", (s) => ["stats", s]],
  ["validate -r json", (s) => ["validate", s, "-r", "json"]],
  ["validate -r sarif", (s) => ["validate", s, "-r", "sarif"]],
  ["validate <thread> -r sarif", (s) => ["validate", `${s}#t1`, "-r", "sarif"]],
  ["show", (s) => ["show", `${s}#t1`]],
  ["log", (s) => ["log", `${s}#t1`]],
  ["log without a thread", (s) => ["log", s]],
  ["migrate --from", (s) => ["migrate", "--from", s, "--to", `sqlite:${join(dir, "m.db")}`]],
  ["migrate --to", (s) => ["migrate", "--from", "fixtures/savers/deepagent-filesaver", "--to", s]],
  ["copy", (s) => ["copy", `${s}#t1`, `sqlite:${join(dir, "c.db")}#t2`]],
  ["delete", (s) => ["delete", `${s}#t1`, "--yes"]],
  ["prune", (s) => ["prune", s, "--keep-last", "5"]],
];

describe.each(["#", "/", "?"])("a password holding an unencoded '%s'", (ch) => {
  const pw = `S3cret${ch}Pw2`;
  for (const uri of uris(pw))
    it.each(commands)(`%s ${uri.split(":")[0]}: not printed; exit 2 asking to percent-encode`, async (_n, argv) => {
      const r = await runCli(argv(uri), { cwd: join(import.meta.dirname, "..") });
      for (const part of PARTS) expect(r.out + r.err, `${argv(uri).join(" ")}`).not.toContain(part);
      if (!argv(uri)[0]!.startsWith("validate")) {
        expect(r.code, r.err).toBe(2);
        expect(r.err).toContain("percent-encoded");
      } else {
        expect(JSON.stringify(JSON.parse(r.out))).toContain("percent-encoded");
      }
    });
});

describe("a password holding a raw '@' (the user-info ends at the last '@' before the host, as URL parsers read it)", () => {
  const raw = uris("S3cret@Pw2");
  const encoded = uris("S3cret%40Pw2");
  raw.forEach((uri, k) =>
    it.each(commands)(
      `%s ${uri.split(":")[0]}: read as its percent-encoded form is (same exit), never printed`,
      async (_n, argv) => {
        const cwd = join(import.meta.dirname, "..");
        const r = await runCli(argv(uri), { cwd });
        const same = await runCli(argv(encoded[k]!), { cwd });
        for (const part of PARTS) expect(r.out + r.err, `${argv(uri).join(" ")}`).not.toContain(part);
        expect(r.err).not.toContain("percent-encoded");
        expect(r.code, r.err).toBe(same.code);
      },
    ),
  );
});

describe("the same passwords percent-encoded", () => {
  it.each(["%23", "%2F", "%3F", "%40"])(
    "'%s': a command that fails to connect does not print it",
    async (enc) => {
      for (const uri of uris(`S3cret${enc}Pw2`))
        for (const [, argv] of commands) {
          const r = await runCli(argv(uri), { cwd: join(import.meta.dirname, "..") });
          for (const part of PARTS) expect(r.out + r.err, `${argv(uri).join(" ")}`).not.toContain(part);
        }
    },
    120_000,
  );
});

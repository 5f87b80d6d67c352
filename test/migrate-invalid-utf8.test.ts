/**
 * Issue #42 item 5: a migration never changes bytes it was not asked to convert. A document holding a byte that is
 * not UTF-8 (`\xe9`, Latin-1 é) is rejected (exit 5) and named with its file and the byte's offset — never written
 * with U+FFFD in its place — into a folder and into SQLite, whether the folder is read on the main thread or by the
 * read-ahead worker; `validate` rejects it as before; `ls` and `show` name the byte too. The offset is where the test
 * put the byte, not what ckpt says.
 */
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { READ_AHEAD } from "../src/savers/file.js";
import { runCli } from "./helpers/cli-io.js";

const good = join(import.meta.dirname, "..", "fixtures", "savers", "deepagent-filesaver", "user_42_session_1.json");
const initial = { ...READ_AHEAD };
afterAll(() => Object.assign(READ_AHEAD, initial));

/** A folder of the good document and `bad.json`, a copy (thread "bad") whose first message text holds \xe9. */
function folder(): { dir: string; src: string; offset: number } {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-utf8-"));
  const src = join(dir, "src");
  mkdirSync(src);
  copyFileSync(good, join(src, "user_42_session_1.json"));
  const text = Buffer.from(JSON.stringify({ ...JSON.parse(readFileSync(good, "utf8")), threadId: "bad" }));
  const at = text.indexOf('"content":"') + '"content":"'.length;
  expect(at).toBeGreaterThan(20);
  const bytes = Buffer.concat([text.subarray(0, at), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20]), text.subarray(at)]);
  writeFileSync(join(src, "bad.json"), bytes);
  return { dir, src, offset: at + 3 };
}

const named = (offset: number) => new RegExp(`bad\\.json: not valid UTF-8 at byte offset ${offset} \\(0xe9\\)`);

describe("a document that is not UTF-8 is rejected by a migration, never rewritten", () => {
  for (const reader of ["main thread", "read-ahead worker"] as const) {
    it(`file → file (${reader}): exit 5, named with the byte offset; the other document written, bad.json not`, async () => {
      Object.assign(
        READ_AHEAD,
        reader === "main thread" ? initial : { threshold: 1, group: 1, when: "always", waitForReader: true },
      );
      const { dir, src, offset } = folder();
      const r = await runCli(["migrate", "--from", `file:${src}`, "--to", `file:${join(dir, "out")}`], { cwd: dir });
      expect(r.code, r.out + r.err).toBe(5);
      expect(r.out + r.err).toMatch(named(offset));
      expect(readdirSync(join(dir, "out"))).toEqual(["user_42_session_1.json"]);
      expect(readFileSync(join(dir, "out", "user_42_session_1.json")).equals(readFileSync(good))).toBe(true);
    });
  }

  it("file → SQLite: exit 5, named; no row holds U+FFFD", async () => {
    Object.assign(READ_AHEAD, initial);
    const { dir, src, offset } = folder();
    const db = join(dir, "out.db");
    const r = await runCli(["migrate", "--from", `file:${src}`, "--to", `sqlite:${db}`], { cwd: dir });
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.out + r.err).toMatch(named(offset));
    const d = new Database(db, { readonly: true });
    const tables = d.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const t = tables.find((n) => !n.endsWith("_meta") && !n.startsWith("sqlite_"))!;
    const rows = d.prepare(`SELECT thread_id, doc FROM "${t}"`).all() as Array<{ thread_id: string; doc: string }>;
    d.close();
    expect(rows.map((x) => x.thread_id)).toEqual(["user:42/session#1"]);
    expect(rows.some((x) => String(x.doc).includes("\uFFFD"))).toBe(false);
  });

  it("an amacs home whose org file is not UTF-8: rejected, named with the file and the byte; the rest written", async () => {
    Object.assign(READ_AHEAD, initial);
    const { dir, src } = folder();
    const home = join(src, "home-1");
    cpSync(join(import.meta.dirname, "..", "fixtures", "amacs", "valid", "agent-home"), home, { recursive: true });
    const org = readFileSync(join(home, "agent-chat.org"));
    const at = org.indexOf("\n") + 1;
    writeFileSync(
      join(home, "agent-chat.org"),
      Buffer.concat([org.subarray(0, at), Buffer.from([0xe9]), org.subarray(at)]),
    );
    const r = await runCli(["migrate", "--from", `file:${src}`, "--to", `file:${join(dir, "out")}`], { cwd: dir });
    expect(r.code, r.out + r.err).toBe(5);
    expect(r.out + r.err).toMatch(
      new RegExp(`home-1/agent-chat\\.org: not valid UTF-8 at byte offset ${at} \\(0xe9\\)`),
    );
    expect(readdirSync(join(dir, "out"))).toEqual(["user_42_session_1.json"]);
    const show = await runCli(["show", `file:${src}#home-1`], { cwd: dir });
    expect(show.code).toBe(3);
    expect(show.err).toMatch(new RegExp(`not valid UTF-8 at byte offset ${at}`));
  });

  it("validate rejects it (exit 3); ls and show name the byte", async () => {
    const { dir, src, offset } = folder();
    expect((await runCli(["validate", join(src, "bad.json")], { cwd: dir })).code).toBe(3);
    const ls = await runCli(["ls", `file:${src}`], { cwd: dir });
    expect(ls.out).toMatch(new RegExp(`not valid UTF-8 at byte offset ${offset}`));
    const show = await runCli(["show", `file:${src}#bad`], { cwd: dir });
    expect(show.code).toBe(3);
    expect(show.err).toMatch(new RegExp(`not valid UTF-8 at byte offset ${offset}`));
  });
});

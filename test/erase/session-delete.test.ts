/**
 * `ckpt delete` of one SQLiteSession session: sessions written as the Python SDK stores them (conversations the real
 * Agents SDK ran, test/conformance/layouts.ts), one more session copied under a unique id and deleted. Afterwards the
 * SDK's own read (SQLiteSession.get_items' query) finds nothing of it, the others read back exactly as before, and no
 * row of any table names it.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiSession } from "../conformance/layouts.js";
import { runCli } from "../helpers/cli-io.js";

// sqlite_session.py get_items (no limit): the SDK's read of a session
const GET_ITEMS = "SELECT message_data FROM agent_messages WHERE session_id = ? ORDER BY id ASC";
const VICTIM = "erase-me-4d1c9";

/** Every row of every table as text, and the tables whose rows name `id`. */
function tablesNaming(file: string, id: string): string[] {
  const db = new Database(file, { readonly: true });
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  const hits = names.filter((t) =>
    (db.prepare(`SELECT * FROM "${t}"`).all() as unknown[]).some((r) => JSON.stringify(r).includes(id)),
  );
  db.close();
  return hits;
}

function items(file: string): Record<string, string[]> {
  const db = new Database(file, { readonly: true });
  const ids = db.prepare("SELECT DISTINCT session_id FROM agent_messages").pluck().all() as string[];
  const out = Object.fromEntries(ids.map((s) => [s, db.prepare(GET_ITEMS).pluck().all(s) as string[]]));
  db.close();
  return out;
}

describe("ckpt delete: an Agents SDK SQLiteSession session", () => {
  let file: string;
  let cleanup: () => Promise<void> | void;
  beforeAll(async () => {
    const b = await openaiSession.build();
    cleanup = b.cleanup;
    file = b.uri.slice("sqlite:".length);
    const db = new Database(file);
    db.prepare("INSERT INTO agent_sessions (session_id) VALUES (?)").run(VICTIM);
    db.prepare(
      "INSERT INTO agent_messages (session_id, message_data) SELECT ?, message_data FROM agent_messages WHERE session_id = 'math' ORDER BY id",
    ).run(VICTIM);
    db.close();
  }, 120_000);
  afterAll(() => cleanup?.());

  it("dry run lists each table's rows and changes nothing; --yes deletes them all, the others unchanged", async () => {
    const before = items(file);
    expect(before[VICTIM]!.length).toBeGreaterThan(0);
    expect(tablesNaming(file, VICTIM).sort()).toEqual(["agent_messages", "agent_sessions"]);
    const dry = await runCli(["delete", `sqlite:${file}#${VICTIM}`, "--json"]);
    expect(dry.code, dry.err).toBe(0);
    const want = [
      { table: "agent_sessions", rows: 1 },
      { table: "agent_messages", rows: before[VICTIM]!.length },
    ];
    expect(JSON.parse(dry.out)).toMatchObject({ thread: VICTIM, dryRun: true, tables: want });
    expect(items(file)).toEqual(before);
    const text = await runCli(["delete", `sqlite:${file}#${VICTIM}`]);
    expect(text.out).toContain(`would delete ${1 + before[VICTIM]!.length} rows`);

    const real = await runCli(["delete", `sqlite:${file}#${VICTIM}`, "--yes", "--json"]);
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out)).toMatchObject({ dryRun: false, tables: want });
    const after = items(file);
    expect(after[VICTIM]).toBeUndefined();
    const { [VICTIM]: _gone, ...rest } = before;
    expect(after).toEqual(rest);
    expect(tablesNaming(file, VICTIM)).toEqual([]);
    // gone: a second delete names no such thread (exit 3), as show does
    expect((await runCli(["delete", `sqlite:${file}#${VICTIM}`, "--yes"])).code).toBe(3);
  });

  it("migrate into it is still refused (exit 2): the store is written only by delete", async () => {
    const r = await runCli([
      "migrate",
      "--from",
      "file:fixtures/savers/deepagent-filesaver",
      "--to",
      `sqlite:${file}`,
      "-q",
    ]);
    expect(r.code, r.err).toBe(2);
  });
});

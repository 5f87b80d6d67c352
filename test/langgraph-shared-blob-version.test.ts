/**
 * #26: a finding where the library itself goes wrong. LangGraph JS's PostgresSaver keys channel values by integer
 * version, so a branch forked from an older checkpoint reuses the main line's (channel, version) keys; the blob
 * upsert keeps the first value and the branch reads the main line's. The real JS library writes a fork on PostgreSQL
 * and on SQLite; its own getState shows the damage on PostgreSQL (the fork's last answer is the main line's) and not on
 * SQLite; `ckpt validate` warns exactly there (`langgraph/shared-blob-version`), names the fork's checkpoints, and is
 * silent on the SQLite twin, on Python's PostgreSQL dumps, and after `ckpt migrate` copies the SQLite twin into PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { chatApp, closeSaver, human, pgSaver, sqliteSaver } from "./helpers/lg-js.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import { runCli } from "./helpers/cli-io.js";
import type { Issue } from "../src/formats/types.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const pgdb = pgTestSchemas("sbv");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-sbv-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Main line: two questions; then a fork from the checkpoint after the first answer, asking something else. */
async function writeFork(saver: BaseCheckpointSaver): Promise<{ fork: string[]; lastText: string }> {
  const app = chatApp(saver);
  const cfg = { configurable: { thread_id: "forked" } };
  await app.invoke(human("Why blue?"), cfg);
  const afterFirst = (await app.getState(cfg)).config;
  await app.invoke(human("Why red?"), cfg);
  const before = new Set<string>();
  for await (const s of app.getStateHistory(cfg)) before.add(s.config.configurable!.checkpoint_id as string);
  await app.invoke(human("Why green?"), afterFirst);
  const fork: string[] = [];
  for await (const s of app.getStateHistory(cfg)) {
    const id = s.config.configurable!.checkpoint_id as string;
    if (!before.has(id)) fork.push(id);
  }
  const state = await app.getState(cfg);
  const msgs = state.values.messages as Array<{ content: unknown }>;
  return { fork, lastText: String(msgs[msgs.length - 1]!.content) };
}

async function findings(uri: string): Promise<{ code: number; issues: Issue[] }> {
  const r = await runCli(["validate", uri, "--json", "--verbose"]);
  const j = JSON.parse(r.out) as { files: Array<{ issues: Issue[] }> };
  return { code: r.code, issues: j.files.flatMap((f) => f.issues) };
}
const shared = (issues: Issue[]) => issues.filter((i) => i.rule === "langgraph/shared-blob-version");

describe("langgraph/shared-blob-version: LangGraph JS PostgresSaver on a forked thread", () => {
  it("the real library loses the fork's values on PostgreSQL (not on SQLite); ckpt warns on the fork's checkpoints only there", async () => {
    const file = join(dir, "fork.sqlite");
    const lite = sqliteSaver(file);
    const onSqlite = await writeFork(lite);
    await closeSaver(lite);
    const schema = pgdb.schema("js");
    const pgs = pgSaver(PG, schema);
    await pgs.setup();
    const onPg = await writeFork(pgs);
    await closeSaver(pgs);

    // the library's own answers: SQLite keeps the fork's conversation, PostgreSQL returns the main line's
    expect(onSqlite.lastText).toBe("Answer: 2 hits for 'Why green?'");
    expect(onPg.lastText).not.toBe(onSqlite.lastText);

    const pg = await findings(`${PG}?schema=${schema}`);
    expect(pg.code).toBe(0); // a warning: the store is as the library wrote it
    const sb = shared(pg.issues);
    expect(sb.length).toBeGreaterThan(0);
    const flagged = new Set(sb.map((i) => /@([0-9a-f-]{36})/.exec(i.file)![1]));
    // every flagged checkpoint is one the fork wrote, and the one holding the fork's answer is among them
    for (const id of flagged) expect(onPg.fork).toContain(id);
    expect(flagged.has(onPg.fork[0]!)).toBe(true);
    expect(sb.some((i) => i.pointer === "/checkpoint/channel_versions/messages")).toBe(true);

    expect(shared((await findings(`sqlite:${file}`)).issues)).toEqual([]);

    // ckpt's own migration gives each branch versions of its own: the copy in PostgreSQL has no shared versions
    const target = pgdb.schema("migrated");
    const m = await runCli(["migrate", "--from", `sqlite:${file}`, "--to", `${PG}?schema=${target}`, "-q"]);
    expect(m.code, m.err).toBe(0);
    expect(shared((await findings(`${PG}?schema=${target}`)).issues)).toEqual([]);
    const back = pgSaver(PG, target);
    const app = chatApp(back);
    const st = await app.getState({ configurable: { thread_id: "forked" } });
    await closeSaver(back);
    const msgs = st.values.messages as Array<{ content: unknown }>;
    expect(String(msgs[msgs.length - 1]!.content)).toBe(onSqlite.lastText);
  });

  it("set C and A dumps: warned where the samples' README says JS PostgresSaver went wrong (c-delta-2, a-forked-1), nowhere in Python's", async () => {
    const threadsOf = (issues: Issue[]) => [...new Set(shared(issues).map((i) => /#([^@]+)@/.exec(i.file)![1]))];
    for (const [dump, expected] of [
      ["js-c", ["c-delta-2"]],
      ["js-a", ["a-forked-1"]],
      ["python-c", []],
      ["python-a", []],
    ] as const) {
      const s = pgdb.schema(dump.replace("-", "_"));
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
        input: readFileSync(join(fx, `${dump}.pg.sql`), "utf8").replaceAll("__SCHEMA__", s),
        stdio: ["pipe", "ignore", "inherit"],
      });
      const r = await findings(`${PG}?schema=${s}`);
      expect(r.code, dump).toBe(0);
      expect(threadsOf(r.issues), dump).toEqual(expected);
    }
  });
});

/**
 * #37: every command on every store of the version matrix (fixtures/versions/<lib>/<version>/, written by the real
 * packages of each release line: scripts/fixtures-versions.mjs), against what the library itself read back
 * (`readback.json`): ls lists the threads the library lists, show gives the conversation the library gives (user
 * texts, answers, tool calls with their arguments and results, in order), log, validate, stats and view succeed,
 * a migration out (into a ckpt store) and back (into a fresh store of the library's layout) reads the same, and
 * diff finds the store and the migrated copy equal. Nothing is installed: the fixtures are committed. The table of
 * library × version × command is printed at the end (and checked: every cell ✓).
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";

const VERSIONS = join(import.meta.dirname, "../fixtures/versions");
type J = Record<string, unknown>;
const isObj = (v: unknown): v is J => typeof v === "object" && v !== null && !Array.isArray(v);

/** One step of a conversation, as both sides spell it. */
type Event = string;
const ev = {
  user: (t: string) => `user: ${t}`,
  text: (t: string) => `assistant: ${t}`,
  call: (id: string, name: string, args: unknown) => `call ${name}#${id} ${JSON.stringify(args)}`,
  result: (id: string, r: unknown) => `result #${id} ${typeof r === "string" ? r : JSON.stringify(r)}`,
};

/** The conversation ckpt shows (show --json: canonical messages). */
function canonicalEvents(cp: J): Event[] {
  const out: Event[] = [];
  for (const m of cp.messages as J[]) {
    const content = (m.content ?? []) as J[];
    if (m.role === "user") out.push(ev.user(content.map((b) => b.text ?? "").join("")));
    else if (m.role === "assistant") {
      for (const b of content) {
        if (b.type === "text" && b.text !== "") out.push(ev.text(String(b.text)));
        if (b.type === "toolCall") out.push(ev.call(String(b.id), String(b.name), b.arguments));
      }
    } else if (m.role === "toolResult") {
      const text = content.map((b) => b.text ?? "").join("");
      let r: unknown = text;
      try {
        r = JSON.parse(text);
      } catch {}
      out.push(ev.result(String(m.toolCallId), r));
    }
  }
  return out;
}

// ---- Mastra: what Memory read back (1.x recall: format 2 rows; 0.10–0.14 messagesV2; 0.4–0.9 UI messages)

function mastraEvents(messages: J[]): Event[] {
  const out: Event[] = [];
  for (const m of messages) {
    const c = m.content;
    if (isObj(c) && Array.isArray(c.parts)) {
      const userSignal = m.role === "signal" && /"type":"user/.test(JSON.stringify((c.metadata as J)?.signal ?? {}));
      if (m.role === "user" || userSignal) {
        out.push(ev.user((c.parts as J[]).map((p) => (p.type === "text" ? p.text : "")).join("")));
        continue;
      }
      for (const p of c.parts as J[]) {
        if (p.type === "text" && p.text !== "") out.push(ev.text(String(p.text)));
        if (p.type === "tool-invocation") {
          const inv = p.toolInvocation as J;
          out.push(ev.call(String(inv.toolCallId), String(inv.toolName), inv.args));
          if ("result" in inv) out.push(ev.result(String(inv.toolCallId), inv.result));
        }
      }
      continue;
    }
    // a UI message (Mastra 0.4–0.9 query().uiMessages): content text, toolInvocations with their results
    if (m.role === "user") out.push(ev.user(String(m.content)));
    else {
      for (const inv of (m.toolInvocations ?? []) as J[]) {
        out.push(ev.call(String(inv.toolCallId), String(inv.toolName), inv.args));
        if ("result" in inv) out.push(ev.result(String(inv.toolCallId), inv.result));
      }
      if (typeof m.content === "string" && m.content !== "") out.push(ev.text(m.content));
    }
  }
  return out;
}

interface Fixture {
  lib: string;
  version: string;
  dir: string;
  readback: J;
}
const fixtures = (lib: string): Fixture[] =>
  existsSync(join(VERSIONS, lib))
    ? readdirSync(join(VERSIONS, lib))
        .filter((v) => existsSync(join(VERSIONS, lib, v, "readback.json")))
        .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
        .map((version) => ({
          lib,
          version,
          dir: join(VERSIONS, lib, version),
          readback: JSON.parse(readFileSync(join(VERSIONS, lib, version, "readback.json"), "utf8")) as J,
        }))
    : [];

const COMMANDS = ["ls", "log", "show", "view", "validate", "stats", "diff", "migrate"] as const;
type Cell = "✓" | string;
const table = new Map<string, Record<string, Cell>>();
const mark = (f: Fixture, cmd: string, ok: boolean, why = "") => {
  const row = table.get(`${f.lib} ${f.version}`) ?? {};
  row[cmd] = ok ? "✓" : `✗ ${why}`.slice(0, 200);
  table.set(`${f.lib} ${f.version}`, row);
};

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "ckpt-versions-"));
});
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  const rows = [...table.entries()];
  if (!rows.length) return;
  const lines = [
    `| library | version | ${COMMANDS.join(" | ")} |`,
    `|---|---|${COMMANDS.map(() => "---").join("|")}|`,
    ...rows.map(([k, r]) => `| ${k.split(" ").join(" | ")} | ${COMMANDS.map((c) => r[c] ?? "–").join(" | ")} |`),
  ];
  console.log(`\nversion matrix (library × version × command):\n${lines.join("\n")}`);
});

describe.each(fixtures("mastra"))("Mastra $version (LibSQL, written by @mastra/core $version)", (f) => {
  const threads = f.readback.threads as Array<J & { id: string; messages: J[] }>;
  let store: string;
  beforeAll(() => {
    store = join(tmp, `mastra-${f.version}.db`);
    copyFileSync(join(f.dir, "store.db"), store);
  });

  it("ls lists the threads Memory lists; log has one checkpoint each", async () => {
    const r = await runCli(["ls", `sqlite:${store}`, "--json"]);
    const ids = r.code === 0 ? (JSON.parse(r.out) as J[]).map((t) => t.threadId ?? t.id).sort() : [];
    const ok = r.code === 0 && JSON.stringify(ids) === JSON.stringify(threads.map((t) => t.id).sort());
    mark(f, "ls", ok, `exit ${r.code} ${r.err.slice(0, 100)} ${JSON.stringify(ids)}`);
    let logOk = true;
    for (const t of threads) {
      const l = await runCli(["log", `sqlite:${store}#${t.id}`]);
      if (l.code !== 0) logOk = false;
    }
    mark(f, "log", logOk);
    expect(ok && logOk).toBe(true);
  });

  it("show gives each thread's conversation as Memory reads it back; view writes its page", async () => {
    const bad: string[] = [];
    let views = true;
    for (const t of threads) {
      const r = await runCli(["show", `sqlite:${store}#${t.id}`, "--json"]);
      const mine = r.code === 0 ? canonicalEvents(JSON.parse(r.out) as J) : [`exit ${r.code}: ${r.err}`];
      const theirs = mastraEvents(t.messages);
      if (JSON.stringify(mine) !== JSON.stringify(theirs))
        bad.push(`${t.id}: ckpt ${JSON.stringify(mine)} ≠ Mastra ${JSON.stringify(theirs)}`);
      const v = await runCli(["view", `sqlite:${store}#${t.id}`, "-o", join(tmp, `mastra-${f.version}-${t.id}.html`)]);
      if (v.code !== 0) views = false;
    }
    mark(f, "show", bad.length === 0, bad[0]);
    mark(f, "view", views);
    expect(bad).toEqual([]);
    expect(views).toBe(true);
  });

  it("validate passes every thread; stats counts the threads", async () => {
    const v = await runCli(["validate", `sqlite:${store}`]);
    mark(f, "validate", v.code === 0, v.out.slice(-200));
    const s = await runCli(["stats", `sqlite:${store}`, "--json"]);
    const threadsCounted =
      s.code === 0
        ? Number((JSON.parse(s.out) as J).threads ?? (JSON.parse(s.out) as J & { totals?: J }).totals?.threads)
        : -1;
    mark(f, "stats", s.code === 0 && threadsCounted === threads.length, `exit ${s.code}, ${threadsCounted} threads`);
    expect(v.code).toBe(0);
    expect(s.code).toBe(0);
  });

  it("migrates out (into a ckpt store) and back (into a new Mastra store): the same conversations; diff finds none", async () => {
    const out = join(tmp, `mastra-${f.version}-out.db`);
    const back = join(tmp, `mastra-${f.version}-back.db`);
    const a = await runCli(["migrate", "--from", `sqlite:${store}`, "--to", `sqlite:${out}`, "--to-format", "ckpt"]);
    const b = await runCli(["migrate", "--from", `sqlite:${out}`, "--to", `sqlite:${back}?layout=mastra`]);
    const bad: string[] = [];
    let diffs = true;
    for (const t of threads) {
      const x = await runCli(["show", `sqlite:${store}#${t.id}`, "--json"]);
      const y = await runCli(["show", `sqlite:${back}#${t.id}`, "--json"]);
      if (
        y.code !== 0 ||
        JSON.stringify(canonicalEvents(JSON.parse(x.out) as J)) !==
          JSON.stringify(canonicalEvents(JSON.parse(y.out) as J))
      )
        bad.push(`${t.id}: exit ${y.code} ${y.err.slice(0, 200)}`);
      const d = await runCli([
        "diff",
        `sqlite:${store}#${t.id}`,
        `sqlite:${out}#${t.id}`,
        "--ignore-volatile",
        "--quiet",
      ]);
      if (d.code !== 0) diffs = false;
    }
    mark(
      f,
      "migrate",
      a.code === 0 && b.code === 0 && bad.length === 0,
      `out ${a.code} back ${b.code} ${a.err.slice(0, 100)} ${b.err.slice(0, 100)} ${bad[0] ?? ""}`,
    );
    mark(f, "diff", diffs);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(bad).toEqual([]);
    expect(diffs).toBe(true);
  });
});

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
  result: (id: string, r: unknown) => `result #${id} ${JSON.stringify(typeof r === "string" ? parsed(r) : r)}`,
};
/** A text that holds JSON as its value (tool results are JSON text on one side, values on the other). */
function parsed(t: string): unknown {
  try {
    return JSON.parse(t);
  } catch {
    return t;
  }
}

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
      out.push(ev.result(String(m.toolCallId), content.map((b) => b.text ?? "").join("")));
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

// ---- AI SDK: the model messages the release made of the chat (v5+ convertToModelMessages; v4 convertToCoreMessages)

const textOf = (c: unknown) =>
  typeof c === "string"
    ? c
    : ((c ?? []) as J[]).map((p) => (p.type === "text" || p.type === "input_text" ? p.text : "")).join("");

function modelEvents(model: J[]): Event[] {
  const out: Event[] = [];
  for (const m of model) {
    if (m.role === "user") out.push(ev.user(textOf(m.content)));
    else if (m.role === "assistant") {
      if (typeof m.content === "string") {
        if (m.content !== "") out.push(ev.text(m.content));
        continue;
      }
      for (const p of m.content as J[]) {
        if (p.type === "text" && p.text !== "") out.push(ev.text(String(p.text)));
        if (p.type === "tool-call") out.push(ev.call(String(p.toolCallId), String(p.toolName), p.input ?? p.args));
      }
    } else if (m.role === "tool")
      for (const p of m.content as J[]) {
        if (p.type !== "tool-result") continue;
        const o = p.output as J | undefined;
        out.push(ev.result(String(p.toolCallId), o ? o.value : p.result));
      }
  }
  return out;
}

// ---- OpenAI Agents SDK: the items the SDK gives (RunState history, a session's getItems())

function itemEvents(items: J[]): Event[] {
  const out: Event[] = [];
  for (const it of items) {
    if (it.role === "user") out.push(ev.user(textOf(it.content)));
    else if (it.role === "assistant") {
      const t = textOf((it.content as J[]).map((c) => ({ ...c, type: c.type === "output_text" ? "text" : c.type })));
      if (t !== "") out.push(ev.text(t));
    } else if (it.type === "function_call")
      out.push(ev.call(String(it.callId), String(it.name), parsed(String(it.arguments))));
    else if (it.type === "function_call_result") {
      const o = it.output as J | string;
      out.push(ev.result(String(it.callId), typeof o === "string" ? o : o.type === "text" ? String(o.text) : o));
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

/** The documents of a fixture (its files but the read-back and the versions), each with the events the library gave. */
interface Doc {
  name: string;
  file: string;
  /** what validate must answer */
  valid: boolean;
  events: Event[];
  /** validate options (the AI SDK major) */
  flags: string[];
}

function docsOf(f: Fixture): Doc[] {
  const rb = f.readback;
  if (f.lib === "ai") {
    const major = String(rb.major);
    return Object.entries(rb.chats as Record<string, J>).map(([name, r]) => ({
      name,
      file: join(f.dir, `${name}.json`),
      valid: r.ok === true,
      events: modelEvents((r.model ?? []) as J[]),
      flags: ["--ai-sdk-version", major],
    }));
  }
  // a paused run: the SDK's history, and the calls waiting for an approval (from 0.8 on the history leaves them out
  // until they are approved; ckpt shows them, marked pending)
  const paused = rb.paused as J;
  const pendingCalls = (paused.interruptions as J[])
    .filter((i) => !JSON.stringify(paused.history).includes(`"callId":"${String(i.callId)}"`))
    .map((i) => ev.call(String(i.callId), String(i.name), parsed(String(i.arguments))));
  const docs: Doc[] = [
    {
      name: "runstate",
      file: join(f.dir, "runstate.json"),
      valid: true,
      events: [...itemEvents(paused.history as J[]), ...pendingCalls],
      flags: [],
    },
    {
      name: "runstate-done",
      file: join(f.dir, "runstate-done.json"),
      valid: true,
      events: itemEvents((rb.done as J).history as J[]),
      flags: [],
    },
  ];
  if (rb.session)
    docs.push({
      name: "session",
      file: join(f.dir, "session.json"),
      valid: true,
      events: itemEvents((rb.session as J).items as J[]),
      flags: [],
    });
  return docs;
}

describe.each([...fixtures("ai"), ...fixtures("openai-agents")])(
  "$lib $version (files written by the release)",
  (f) => {
    let folder: string;
    let docs: Doc[];
    beforeAll(() => {
      docs = docsOf(f);
      folder = mkdtempSync(join(tmp, `${f.lib}-${f.version}-`));
      for (const d of docs) copyFileSync(d.file, join(folder, `${d.name}.json`));
    });

    it("ls lists each document of the folder, log each one's checkpoint, stats the folder", async () => {
      const r = await runCli(["ls", `file:${folder}`, "--json"]);
      const ids = r.code === 0 ? (JSON.parse(r.out) as J[]).map((t) => t.threadId).sort() : [];
      const ok = JSON.stringify(ids) === JSON.stringify(docs.map((d) => d.name).sort());
      mark(f, "ls", ok, `exit ${r.code} ${JSON.stringify(ids)}`);
      let logs = true;
      for (const d of docs) if ((await runCli(["log", `file:${folder}#${d.name}`])).code !== 0) logs = false;
      mark(f, "log", logs);
      const s = await runCli(["stats", `file:${folder}`]);
      mark(f, "stats", s.code === 0, s.err.slice(0, 200));
      expect([ok, logs, s.code]).toEqual([true, true, 0]);
    });

    it("validate answers what the release answered; show gives the conversation it gave; view writes the page", async () => {
      const bad: string[] = [];
      let valid = true;
      let views = true;
      for (const d of docs) {
        const v = await runCli(["validate", d.file, ...d.flags]);
        if ((v.code === 0) !== d.valid) {
          valid = false;
          bad.push(`${d.name}: validate exit ${v.code}: ${v.out.slice(0, 300)}`);
        }
        const r = await runCli(["show", d.file, "--json"]);
        const mine = r.code === 0 ? canonicalEvents(JSON.parse(r.out) as J) : [`exit ${r.code}: ${r.err}`];
        if (JSON.stringify(mine) !== JSON.stringify(d.events))
          bad.push(`${d.name}: ckpt ${JSON.stringify(mine)} ≠ ${f.lib} ${JSON.stringify(d.events)}`);
        if ((await runCli(["view", d.file, "-o", join(folder, `${d.name}.html`)])).code !== 0) views = false;
      }
      mark(f, "validate", valid, bad[0]);
      mark(
        f,
        "show",
        !bad.some((b) => b.includes("≠")),
        bad.find((b) => b.includes("≠")),
      );
      mark(f, "view", views);
      expect(bad).toEqual([]);
      expect(views).toBe(true);
    });

    it("migrates out (into a ckpt store) and back (into a folder): the same conversations; diff finds none", async () => {
      const src = mkdtempSync(join(tmp, `${f.lib}-${f.version}-src-`));
      for (const d of docs) copyFileSync(d.file, join(src, `${d.name}.json`));
      const out = join(tmp, `${f.lib}-${f.version}-out.db`);
      const back = join(tmp, `${f.lib}-${f.version}-back`);
      const a = await runCli(["migrate", "--from", `file:${src}`, "--to", `sqlite:${out}`, "--to-format", "ckpt"]);
      const b = await runCli(["migrate", "--from", `sqlite:${out}`, "--to", `file:${back}`]);
      const bad: string[] = [];
      let diffs = true;
      for (const d of docs) {
        const y = await runCli(["show", `file:${back}#${d.name}`, "--json"]);
        const mine = y.code === 0 ? canonicalEvents(JSON.parse(y.out) as J) : [`exit ${y.code}: ${y.err}`];
        if (JSON.stringify(mine) !== JSON.stringify(d.events))
          bad.push(`${d.name}: ${JSON.stringify(mine).slice(0, 300)}`);
        const x = await runCli(["diff", d.file, `sqlite:${out}#${d.name}`, "--ignore-volatile", "--quiet"]);
        if (x.code !== 0) diffs = false;
      }
      mark(
        f,
        "migrate",
        a.code === 0 && b.code === 0 && bad.length === 0,
        `out ${a.code} back ${b.code} ${a.err.slice(0, 120)} ${b.err.slice(0, 120)} ${bad[0] ?? ""}`,
      );
      mark(f, "diff", diffs);
      expect([a.code, b.code]).toEqual([0, 0]);
      expect(bad).toEqual([]);
      expect(diffs).toBe(true);
    });
  },
);

// ---- LangGraph JS: what the graph read back (getState's messages, getStateHistory's length)

function lgEvents(messages: J[]): Event[] {
  const out: Event[] = [];
  for (const m of messages) {
    const text = typeof m.content === "string" ? m.content : textOf(m.content);
    if (m.type === "human") out.push(ev.user(text));
    else if (m.type === "ai") {
      if (text !== "") out.push(ev.text(text));
      for (const c of (m.tool_calls ?? []) as J[]) out.push(ev.call(String(c.id), String(c.name), c.args));
    } else if (m.type === "tool") out.push(ev.result(String(m.tool_call_id), text));
  }
  return out;
}

// deepagents' store: LangGraph JS + SqliteSaver with DeltaChannel `files` and `messages` (test/deepagents-delta.test.ts)
describe.each([...fixtures("langgraph"), ...fixtures("deepagents")])(
  "$lib $version (SqliteSaver, written by the $lib $version release line)",
  (f) => {
    const threads = f.readback.threads as Array<J & { id: string; messages: J[]; checkpoints: number }>;
    let store: string;
    beforeAll(() => {
      store = join(tmp, `${f.lib}-${f.version}.db`);
      copyFileSync(join(f.dir, "store.db"), store);
    });

    it("ls lists the graph's threads; log lists as many checkpoints as getStateHistory; stats reads the store", async () => {
      const r = await runCli(["ls", `sqlite:${store}`, "--json"]);
      const ids = r.code === 0 ? (JSON.parse(r.out) as J[]).map((t) => t.threadId).sort() : [];
      const ok = JSON.stringify(ids) === JSON.stringify(threads.map((t) => t.id).sort());
      mark(f, "ls", ok, `exit ${r.code} ${JSON.stringify(ids)}`);
      const bad: string[] = [];
      for (const t of threads) {
        const l = await runCli(["log", `sqlite:${store}#${t.id}`, "--json"]);
        const n = l.code === 0 ? (JSON.parse(l.out) as unknown[]).length : -1;
        if (n !== t.checkpoints) bad.push(`${t.id}: ${n} checkpoints, the graph ${t.checkpoints}`);
      }
      mark(f, "log", bad.length === 0, bad[0]);
      const s = await runCli(["stats", `sqlite:${store}`]);
      mark(f, "stats", s.code === 0, s.err.slice(0, 200));
      expect([ok, bad, s.code]).toEqual([true, [], 0]);
    });

    it("show gives each thread's messages as getState gives them; view writes the page; validate passes", async () => {
      const bad: string[] = [];
      let views = true;
      for (const t of threads) {
        const r = await runCli(["show", `sqlite:${store}#${t.id}`, "--json"]);
        const mine = r.code === 0 ? canonicalEvents(JSON.parse(r.out) as J) : [`exit ${r.code}: ${r.err}`];
        if (JSON.stringify(mine) !== JSON.stringify(lgEvents(t.messages)))
          bad.push(`${t.id}: ckpt ${JSON.stringify(mine)} ≠ LangGraph ${JSON.stringify(lgEvents(t.messages))}`);
        const v = await runCli([
          "view",
          `sqlite:${store}#${t.id}`,
          "-o",
          join(tmp, `${f.lib}-${f.version}-${t.id}.html`),
        ]);
        if (v.code !== 0) views = false;
      }
      const v = await runCli(["validate", `sqlite:${store}`]);
      mark(f, "show", bad.length === 0, bad[0]);
      mark(f, "view", views);
      mark(f, "validate", v.code === 0, v.out.slice(-200));
      expect(bad).toEqual([]);
      expect([views, v.code]).toEqual([true, 0]);
    });

    it("migrates out (a copy) and back (a copy of the copy): diff finds the threads equal", async () => {
      const out = join(tmp, `${f.lib}-${f.version}-out.db`);
      const back = join(tmp, `${f.lib}-${f.version}-back.db`);
      const a = await runCli(["migrate", "--from", `sqlite:${store}`, "--to", `sqlite:${out}`]);
      const b = await runCli(["migrate", "--from", `sqlite:${out}`, "--to", `sqlite:${back}`]);
      let diffs = true;
      for (const t of threads) {
        const d = await runCli([
          "diff",
          `sqlite:${store}#${t.id}`,
          `sqlite:${back}#${t.id}`,
          "--ignore-volatile",
          "--quiet",
        ]);
        if (d.code !== 0) diffs = false;
      }
      mark(
        f,
        "migrate",
        a.code === 0 && b.code === 0,
        `out ${a.code} back ${b.code} ${a.err.slice(0, 150)} ${b.err.slice(0, 150)}`,
      );
      mark(f, "diff", diffs);
      expect([a.code, b.code, diffs]).toEqual([0, 0, true]);
    });
  },
);

/**
 * `ckpt ls <URI>`: the threads a saver holds, with step, message count, size and update time (`--json` for NDJSON-free
 * machine output: one JSON array).
 */
import { existsSync } from "node:fs";
import { printable } from "../base/printable.js";
import { streamTable, tableTime } from "./table.js";
import type { Argv } from "yargs";
import { stringifyJson } from "../base/json.js";
import { plural } from "../base/plural.js";
import { readCheckpoint } from "../formats/index.js";
import { intOption, type CommandDef } from "./command.js";
import type { CliIO } from "./io.js";
import { CkptError, ExitCode, inputError, usageError } from "../base/errors.js";
import { statSync } from "node:fs";
import { namespaceOf } from "../savers/types.js";
import { storeAt } from "./input.js";
import type { LgThreadSummary } from "../formats/langgraph/types.js";
import type { AiChatbotStore, LangGraphSaver, MastraStore } from "../savers/index.js";
import type { OpenAISessionStore } from "../savers/openai-session/sqlite.js";
import type { Saver, ThreadInfo } from "../savers/types.js";
import { openStore } from "./stores.js";

interface Row {
  namespace: string;
  threadId: string;
  format: string | null;
  step: number | bigint | null;
  messages: number | null;
  bytes: number;
  updatedAt: string | null;
  error?: string;
}

/** One thread's row: its document read through the formats (a record that cannot be read is a finding in its row). */
async function rowOf(saver: Saver, ns: string, t: ThreadInfo): Promise<Row> {
  let text: string | undefined;
  let unreadable: string | undefined;
  try {
    text = await saver.load(t.threadId, ns);
  } catch (e) {
    // one record ckpt cannot read is a finding in its row; the others are still listed
    if (!(e instanceof CkptError) || e.exitCode === ExitCode.BUG) throw e;
    unreadable = e.message;
  }
  const row: Row = {
    namespace: ns,
    threadId: t.threadId,
    format: null,
    step: null,
    messages: null,
    bytes: t.bytes,
    updatedAt: t.updatedAt ?? null,
    ...(unreadable !== undefined ? { error: unreadable } : {}),
  };
  if (text !== undefined) {
    try {
      const { checkpoint, format } = readCheckpoint({ name: `${saver.uri}#${t.threadId}`, text });
      row.format = format;
      row.step = checkpoint.step;
      row.messages = checkpoint.messages.length;
      row.updatedAt = checkpoint.updatedAt ?? row.updatedAt;
    } catch (e) {
      row.error = (e as Error).message;
    }
  }
  return row;
}

/**
 * `ls <file>` names one file, not a folder of threads: a file that is no checkpoint (unreadable, or no format ckpt
 * knows) is an input error naming it, not a listing of one broken thread.
 */
function notACheckpoint(u: { kind: string; location: string }, rows: Row[]): void {
  if (u.kind !== "file" || rows.length !== 1 || rows[0]!.format !== null) return;
  let file = false;
  try {
    file = statSync(u.location).isFile();
  } catch {
    return;
  }
  if (file)
    throw inputError("not-a-checkpoint", `not a checkpoint: ${rows[0]!.error ?? "unreadable"}`, { file: u.location });
}

/** The rows as a text table, with the count of threads (and of files not read). */
function tableOf(rows: Row[], unread: number): string {
  const head = ["NAMESPACE", "THREAD", "FORMAT", "STEP", "MESSAGES", "SIZE", "UPDATED"];
  const table = rows.map((r) =>
    [
      r.namespace,
      r.threadId,
      r.format ?? `? (${r.error ?? "unreadable"})`,
      r.step ?? "-",
      r.messages ?? "-",
      `${r.bytes} B`,
      tableTime(r.updatedAt),
    ].map((c) => printable(String(c))),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 3 && i <= 5 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return (
    [line(head), ...table.map(line)].join("\n") +
    `\n${plural(rows.length - unread, "thread")}${unread ? `, ${plural(unread, "file")} not read` : ""}\n`
  );
}

export const lsCommand: CommandDef = {
  command: "ls <uri>",
  describe: "List the threads in a saver: step, messages, size, updated time",
  builder: (y: Argv) =>
    y
      .positional("uri", {
        type: "string",
        describe: "saver URI (file:<dir>, sqlite:<path>, redis://…, postgres://…) or a folder",
      })
      .option("namespace", {
        type: "string",
        array: true,
        describe: "namespace(s) to list, when the URI has no ?namespace= (default: all)",
      })
      .option("limit", { type: "number", describe: "at most this many threads per namespace" })
      .option("json", { type: "boolean", default: false, describe: "a JSON array of rows" })
      .example("ckpt ls ./.checkpoints", "a deep-agent FileSaver folder")
      .example("ckpt ls sqlite:./ckpt.db --json", "every thread of a SQLite store, as JSON")
      .example("ckpt ls 'redis://127.0.0.1:6379?namespace=prod' --limit 20", "one namespace of a Redis store")
      .example("ckpt ls postgres://localhost/app --namespace a --namespace b", "two namespaces of a PostgreSQL store"),
  run: async (args: { uri: string; namespace?: string[]; limit?: number; json: boolean }, io: CliIO) => {
    // one namespace rule for every command: the URI's ?namespace=, else --namespace, else every namespace
    intOption(args.limit, "--limit");
    args.uri = storeAt(args.uri, io.cwd);
    const flagNs = args.namespace?.length === 1 ? args.namespace[0] : undefined;
    const { parseSaverUri } = await import("../savers/uri.js");
    // `<langgraph-store>#<thread>`: the thread's checkpoint namespaces (the root graph and its subgraphs)
    const hash = args.uri.indexOf("#");
    // (only a SQLite file that exists or a PostgreSQL database can be one; anything else is the usage error below)
    const s = hash >= 0 ? parseSaverUri(args.uri.slice(0, hash), io.env) : undefined;
    if (s && ((s.kind === "sqlite" && existsSync(s.location)) || s.kind === "postgres")) {
      const opened = await openStore(s, { readOnly: true, env: io.env });
      if (opened.layout !== "langgraph") await opened.saver.close();
      else {
        const ns = namespaceOf(s, flagNs);
        if (ns === undefined && args.namespace && args.namespace.length > 1)
          throw usageError("a thread's namespaces: give at most one --namespace");
        return lsThreadNamespaces(opened.saver, decodeThread(args.uri.slice(hash + 1)), ns, args.json, io);
      }
    }
    const u = parseSaverUri(args.uri, io.env); // parsed once, here
    const uriNs = namespaceOf(u, flagNs);
    if (uriNs !== undefined && args.namespace && args.namespace.length > 1)
      throw usageError(
        `namespace given twice: '${uriNs}' in the URI and --namespace ${args.namespace.join(" ")}; keep one`,
      );
    const opened = await openStore(u, { readOnly: true, env: io.env });
    if (opened.layout === "mastra") {
      if (uriNs !== undefined || args.namespace?.length) {
        await opened.saver.close();
        throw usageError(`${opened.saver.uri}: a Mastra store has no namespaces (its threads belong to resources)`);
      }
      return lsMastra(opened.store, args, io);
    }
    if (opened.layout === "openai-agents-session") {
      await rejectNamespaces(
        opened.saver,
        uriNs !== undefined || Boolean(args.namespace?.length),
        "an Agents SDK SQLiteSession store",
      );
      return lsOpenAISession(opened.store, args, io);
    }
    if (opened.layout === "ai-chatbot") {
      await rejectNamespaces(opened.saver, uriNs !== undefined || Boolean(args.namespace?.length), "a Chat SDK store");
      return lsAiChatbot(opened.store, args, io);
    }
    if (opened.layout === "langgraph") {
      // a LangGraph namespace (checkpoint_ns) belongs to one thread's subgraph: never ignored, never the root graph
      if (uriNs !== undefined || args.namespace?.length) {
        await opened.saver.close();
        throw usageError(
          `${opened.saver.uri}: a LangGraph store's namespaces are a thread's subgraphs ('<node>:<task id>'): 'ckpt ls <store>#<thread>' lists a thread's, and show, view, diff, log and validate read one with --namespace`,
        );
      }
      return lsLangGraph(opened.saver, args, io);
    }
    const saver = opened.saver;
    const rows: Row[] = [];
    const unread: Row[] = [];
    let others: string[] = []; // when the namespaces asked for hold nothing: the ones that hold threads
    try {
      for (const ns of uriNs !== undefined ? [uriNs] : (args.namespace ?? (await saver.namespaces()))) {
        for await (const t of saver.list({ namespace: ns, limit: args.limit })) {
          rows.push(await rowOf(saver, ns, t));
        }
        // a folder's files that look like checkpoints but are not read (unreadable, a second file for a thread): named
        for (const p of saver.passedOver?.(ns).rejected ?? [])
          unread.push({
            namespace: ns,
            threadId: p.threadId ?? "",
            format: null,
            step: null,
            messages: null,
            bytes: 0,
            updatedAt: null,
            error: `${p.path}: ${p.reason}`,
          });
      }
      const asked = uriNs !== undefined ? [uriNs] : args.namespace;
      if (rows.length === 0 && asked) others = (await saver.namespaces()).filter((ns) => !asked.includes(ns));
    } finally {
      await saver.close();
    }
    rows.push(...unread);
    notACheckpoint(u, rows);
    if (args.json) {
      io.stdout.write(stringifyJson(rows, 2) + "\n");
      return 0;
    }
    if (rows.length === 0) {
      const where = uriNs !== undefined ? [uriNs] : args.namespace;
      const inNs = where ? ` in namespace ${where.map((n) => `'${n}'`).join(", ")}` : "";
      io.stdout.write(
        `${saver.uri}: no threads${inNs}${others.length ? ` (threads are in namespace ${others.map((n) => `'${n}'`).join(", ")})` : ""}\n`,
      );
      return 0;
    }
    io.stdout.write(tableOf(rows, unread.length));
    return 0;
  },
};

// ------------------------------------------------------------------------------------------------ LangGraph stores

/**
 * A LangGraph store: one row per thread (root-namespace checkpoints, newest step, messages of the newest checkpoint,
 * stored bytes incl. writes and blobs, last update, subgraph namespaces), printed as the store streams them: memory
 * does not grow with the number of threads or checkpoints.
 */
const LG_HEAD = ["THREAD", "CHECKPOINTS", "STEP", "MESSAGES", "SIZE", "UPDATED", "SUBGRAPHS", "WRITER"];

function lgCells(t: LgThreadSummary): string[] {
  return [
    t.threadId,
    String(t.checkpoints),
    t.newestStep === null ? "-" : String(t.newestStep),
    t.messages === null ? "-" : String(t.messages),
    `${t.bytes} B`,
    tableTime(t.updatedAt),
    t.namespaces ? `${t.namespaces} ns, ${t.subgraphCheckpoints} cp` : "-",
    t.library,
  ];
}

async function lsLangGraph(saver: LangGraphSaver, args: { limit?: number; json: boolean }, io: CliIO): Promise<number> {
  let n = 0;
  try {
    const threads = saver.langgraph.threads({ limit: args.limit });
    if (args.json) {
      io.stdout.write("[");
      for await (const t of threads)
        io.stdout.write((n++ ? ",\n" : "\n") + JSON.stringify({ layout: "langgraph", ...t }));
      io.stdout.write(n ? "\n]\n" : "]\n");
      return 0;
    }
    // widths from the first rows (streamed: memory stays bounded)
    const table = streamTable(LG_HEAD, new Set([1, 2, 3, 4]), (text) => io.stdout.write(text));
    for await (const t of threads) table.row(lgCells(t));
    table.end();
    n = table.count;
    io.stdout.write(
      n ? `${plural(n, "thread")} (LangGraph ${saver.langgraph.info.store} store)\n` : `${saver.uri}: no threads\n`,
    );
    return 0;
  } finally {
    await saver.close();
  }
}

// ------------------------------------------------------------------------------------------------ Mastra stores

const MASTRA_HEAD = ["THREAD", "RESOURCE", "TITLE", "MESSAGES", "SIZE", "UPDATED"];

/** A Mastra store: one row per thread (its resource, title, messages, stored bytes of their contents, last update), streamed. */
async function lsMastra(store: MastraStore, args: { limit?: number; json: boolean }, io: CliIO): Promise<number> {
  try {
    const threads = store.threads({ limit: args.limit });
    if (args.json) {
      let n = 0;
      io.stdout.write("[");
      for await (const t of threads) io.stdout.write((n++ ? ",\n" : "\n") + JSON.stringify({ layout: "mastra", ...t }));
      io.stdout.write(n ? "\n]\n" : "]\n");
      return 0;
    }
    const table = streamTable(MASTRA_HEAD, new Set([3, 4]), (text) => io.stdout.write(text));
    for await (const t of threads)
      table.row([t.threadId, t.resourceId, t.title || "-", String(t.messages), `${t.bytes} B`, tableTime(t.updatedAt)]);
    table.end();
    const c = await store.counts();
    io.stdout.write(
      table.count
        ? `${plural(table.count, "thread")} (Mastra ${store.kind === "sqlite" ? "LibSQL" : "PostgreSQL"} store: ${plural(c.messages, "message")}, ${plural(c.resources, "resource")})${c.orphanMessages ? `; ${plural(c.orphanMessages, "message")} of no thread (Mastra never lists them)` : ""}\n`
        : `${store.uri}: no threads\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** A store of a layout with no namespaces: a namespace asked for is a usage error. */
async function rejectNamespaces(saver: { uri: string; close(): Promise<void> }, asked: boolean, what: string) {
  if (!asked) return;
  await saver.close();
  throw usageError(`${saver.uri}: ${what} has no namespaces`);
}

// ------------------------------------------------------------------------------------ Agents SDK SQLiteSession stores

const SESSION_HEAD = ["SESSION", "ITEMS", "SIZE", "CREATED", "UPDATED"];

/** An Agents SDK (Python) SQLiteSession store: one row per session (items, stored bytes, created, updated), streamed. */
async function lsOpenAISession(
  store: OpenAISessionStore,
  args: { limit?: number; json: boolean },
  io: CliIO,
): Promise<number> {
  try {
    const sessions = store.sessions({ limit: args.limit });
    if (args.json) {
      let n = 0;
      io.stdout.write("[");
      for await (const s of sessions)
        io.stdout.write((n++ ? ",\n" : "\n") + JSON.stringify({ layout: "openai-agents-session", ...s }));
      io.stdout.write(n ? "\n]\n" : "]\n");
      return 0;
    }
    const table = streamTable(SESSION_HEAD, new Set([1, 2]), (text) => io.stdout.write(text));
    for await (const s of sessions)
      table.row([
        s.sessionId,
        String(s.items),
        `${s.bytes} B`,
        s.createdAt ? tableTime(s.createdAt) : "-",
        s.updatedAt ? tableTime(s.updatedAt) : "-",
      ]);
    table.end();
    const c = store.counts();
    io.stdout.write(
      table.count
        ? `${plural(table.count, "session")} (Agents SDK SQLiteSession: ${plural(c.items, "item")} in ${store.tables.messages})${c.orphanSessions ? `; ${plural(c.orphanSessions, "session")} only in ${store.tables.messages} (no ${store.tables.sessions} row)` : ""}\n`
        : `${store.uri}: no sessions\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

// ------------------------------------------------------------------------------------------ Chat SDK template stores

const CHATBOT_HEAD = ["CHAT", "TITLE", "USER", "VISIBILITY", "MESSAGE", "MESSAGE_V2", "CREATED"];

/** A Chat SDK template store: one row per chat (title, user, visibility, its rows in Message and Message_v2), streamed. */
async function lsAiChatbot(store: AiChatbotStore, args: { limit?: number; json: boolean }, io: CliIO): Promise<number> {
  try {
    const chats = store.chats({ limit: args.limit });
    if (args.json) {
      let n = 0;
      io.stdout.write("[");
      for await (const c of chats)
        io.stdout.write((n++ ? ",\n" : "\n") + JSON.stringify({ layout: "ai-chatbot", ...c }));
      io.stdout.write(n ? "\n]\n" : "]\n");
      return 0;
    }
    const table = streamTable(CHATBOT_HEAD, new Set([4, 5]), (text) => io.stdout.write(text));
    for await (const c of chats)
      table.row([
        c.id,
        c.title || "-",
        c.email ?? c.userId,
        c.visibility,
        String(c.messages),
        String(c.messagesV2),
        tableTime(c.createdAt),
      ]);
    table.end();
    const n = await store.counts();
    io.stdout.write(
      table.count
        ? `${plural(table.count, "chat")} (Chat SDK template, ${store.kind === "sqlite" ? "SQLite" : "PostgreSQL"}: ${plural(n.messagesV2, "row")} in Message_v2, ${plural(n.messages, "row")} in Message, ${plural(n.users, "user")})\n`
        : `${store.uri}: no chats\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

function decodeThread(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * `ckpt ls <langgraph-store>#<thread>`: one row per checkpoint namespace of the thread ('' the root graph, then its
 * subgraphs): checkpoints, the newest one's step, messages, time and pending interrupt. `namespace` keeps one (an
 * unknown one is exit 3 listing the thread's).
 */
async function lsThreadNamespaces(
  saver: LangGraphSaver,
  threadId: string,
  namespace: string | undefined,
  json: boolean,
  io: CliIO,
): Promise<number> {
  const lg = saver.langgraph;
  try {
    const spaces = await lg.namespacesOf(threadId);
    if (spaces.length === 0)
      throw new CkptError(ExitCode.INPUT, "no-thread", `no checkpoint for thread '${threadId}'`, { file: saver.uri });
    const asked = namespace === "default" ? "" : namespace;
    if (asked !== undefined && !spaces.includes(asked))
      throw new CkptError(
        ExitCode.INPUT,
        "no-namespace",
        `thread '${threadId}' has no checkpoint namespace '${asked}'; its namespaces: ${spaces.map((n) => `'${n}'`).join(", ")}`,
        { file: saver.uri },
      );
    const rows = [];
    for (const ns of asked !== undefined ? [asked] : spaces) {
      let checkpoints = 0;
      for await (const _ of lg.checkpointIds(threadId, ns)) checkpoints++;
      let newest;
      for await (const e of saver.history(threadId, ns)) {
        newest = e;
        break;
      }
      rows.push({
        namespace: ns,
        checkpoints,
        newestId: newest?.checkpointId ?? null,
        newestStep: newest?.step ?? null,
        messages: newest?.messages ?? null,
        updatedAt: newest?.ts ?? null,
        interrupted: newest?.interrupted ?? false,
      });
    }
    if (json) {
      io.stdout.write(`${stringifyJson(rows, 2)}\n`);
      return 0;
    }
    const cells = [
      ["NAMESPACE", "CHECKPOINTS", "STEP", "MESSAGES", "UPDATED", "INTERRUPTED"],
      ...rows.map((r) => [
        r.namespace === "" ? "'' (root)" : printable(r.namespace),
        String(r.checkpoints),
        r.newestStep === null ? "-" : String(r.newestStep),
        r.messages === null ? "-" : String(r.messages),
        r.updatedAt ?? "-",
        r.interrupted ? "yes" : "-",
      ]),
    ];
    const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
    const out = cells.map(
      (c) =>
        c
          .map((x, i) => (i >= 1 && i <= 3 ? x.padStart(widths[i]!) : x.padEnd(widths[i]!)))
          .join("  ")
          .trimEnd() + "\n",
    );
    io.stdout.write(`${out.join("")}${plural(rows.length, "namespace")} of thread '${printable(threadId)}'\n`);
    return 0;
  } finally {
    await saver.close();
  }
}

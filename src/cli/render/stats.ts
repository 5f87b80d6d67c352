/**
 * The text of `ckpt stats`: the summary line first, then short tables that fit one screen at the default --top 10.
 */
import type { LangGraphStatsReport, MastraStatsReport, SaverStatsReport } from "../../generated/types.js";
import { humanBytes } from "../../core/langgraph/stats.js";
import { fmtInt } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import { tableTime } from "../../base/time.js";
import { displayWidth, padEndCols, padStartCols } from "./table.js";
import { AES_KEY_HINT } from "../../formats/langgraph/aes-key.js";
import { allowlistLiteral } from "../../formats/langgraph/msgpack-audit.js";

const num = fmtInt;
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(a / b >= 0.1 || a === 0 ? 0 : 1)}%` : "-");

/** Left-aligned first column, the rest right-aligned. */
function table(head: string[], rows0: string[][], indent = "  "): string[] {
  const rows = rows0.map((r) => r.map((x) => printable(x)));
  const w = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i]!))));
  const line = (c: string[]) =>
    indent +
    c
      .map((x, i) => (i === 0 ? padEndCols(x, w[i]!) : padStartCols(x, w[i]!)))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

const EXT_KIND: Record<number, string> = {
  0: "constructor",
  1: "constructor",
  2: "constructor",
  3: "method call",
  4: "pydantic v1",
  5: "pydantic v2",
  6: "numpy array",
};

/** The msgpack audit: the Python classes stored, those outside LangGraph's default strict allowlist first. */
function renderAudit(a: LangGraphStatsReport["msgpackAudit"], top: number, uri: string): string[] {
  if (a.values === 0 && a.encrypted === 0) return [];
  const out: string[] = [""];
  const outside = a.types.filter((t) => !t.allowed);
  const shown = [...outside, ...a.types.filter((t) => t.allowed).slice(0, top)];
  if (shown.length) {
    const rows = shown.map((t) => [
      `${t.module}.${t.name}${t.method ? `.${t.method}()` : ""}`,
      EXT_KIND[t.ext] ?? String(t.ext),
      num(t.count),
      num(t.threads),
      t.ext === 6 ? "not gated" : t.allowed ? "yes" : "NO",
    ]);
    out.push(...table(["PYTHON CLASS (MSGPACK)", "KIND", "STORED", "THREADS", "STRICT MODE"], rows, ""));
  }
  const more = a.types.length - shown.length;
  const head = `strict     ${num(a.values)} msgpack values scanned against the default allowlist of ${a.allowlist}${more > 0 ? ` (${plural(more, "more allowed class", "more allowed classes")}: --top)` : ""}`;
  out.push(head);
  if (outside.length) {
    const methods = outside.filter((t) => t.ext === 3).length;
    out.push(
      `           ${plural(outside.length, "class", "classes")} outside it: with LANGGRAPH_STRICT_MSGPACK=true the library returns their raw arguments instead of the objects unless they are in allowed_msgpack_modules (or in the graph's state schema)${methods ? `; ${plural(methods, "method call")} cannot be allowed by configuration` : ""}. \`ckpt stats ${uri} --allowlist\` prints the value`,
    );
  } else if (a.types.length) out.push("           every class is on it: strict mode reads this store as it is");
  if (a.encrypted) out.push(`           ${num(a.encrypted)} encrypted values not scanned: ${AES_KEY_HINT}`);
  if (a.unscannable)
    out.push(`           ${plural(a.unscannable, "msgpack value")} could not be scanned (not msgpack)`);
  out.push("");
  return out;
}

/** `--allowlist`: a ready `allowed_msgpack_modules` value, with what it cannot cover as Python comments. */
export function renderAllowlist(a: LangGraphStatsReport["msgpackAudit"]): string {
  const gated = a.types.filter((t) => !t.allowed && t.ext !== 3);
  const notes: string[] = [];
  for (const t of a.types.filter((t) => !t.allowed && t.ext === 3))
    notes.push(
      `# ${t.module}.${t.name}.${t.method}() (a method call) is not covered: allowed_msgpack_modules does not extend SAFE_MSGPACK_METHODS`,
    );
  if (a.encrypted) notes.push(`# incomplete: ${num(a.encrypted)} encrypted values were not scanned (${AES_KEY_HINT})`);
  if (a.unscannable) notes.push(`# incomplete: ${plural(a.unscannable, "value")} could not be scanned (not msgpack)`);
  return `${notes.map((n) => `${n}\n`).join("")}${allowlistLiteral(gated)}\n`;
}

export function renderLgStats(r: LangGraphStatsReport, top: number): string {
  const out: string[] = [r.summary, ""];
  const lib =
    r.library === "js"
      ? "JS json serde"
      : r.library === "python"
        ? "Python msgpack serde"
        : r.library === "mixed"
          ? "JS json and Python msgpack rows"
          : "no payload";
  out.push(
    `store      ${r.uri} — LangGraph ${r.store} store, ${lib}${r.filter ? ` (threads: ${[...r.filter.threads, ...r.filter.match].join(", ")})` : ""}; measured in ${(r.elapsedMs / 1000).toFixed(2)} s`,
  );
  const method =
    r.storedMethod === "dbstat"
      ? "SQLite dbstat: table pages + primary-key index"
      : r.storedMethod === "sum-of-lengths"
        ? "sum of column lengths (this SQLite build has no dbstat)"
        : "pg_total_relation_size: table + indexes + TOAST";
  out.push(
    `tables     ${r.tables.map((t) => `${t.table} ${num(t.rows)} rows, ${t.storedBytes === null ? "?" : humanBytes(t.storedBytes)}`).join(" · ")}  (${method}${r.filter ? "; whole tables" : ""})`,
  );
  if (r.files?.length)
    out.push(
      `files      ${r.files.map((f) => `${f.file} ${humanBytes(f.bytes)}`).join(" · ")}${r.files.some((f) => f.file.endsWith("-wal") && f.bytes > 0) ? "  (the -wal holds committed transactions not yet checkpointed into the file)" : ""}`,
    );
  const pay = r.totals.payloadBytes;
  out.push(`payload    ${r.parts.map((p) => `${p.part} ${humanBytes(p.bytes)} (${pct(p.bytes, pay)})`).join(" · ")}`);
  const cpBytes = r.parts.find((p) => p.part === "checkpoints")?.bytes ?? 0;
  if (cpBytes)
    out.push(
      `           checkpoint column: ${r.store === "sqlite" ? "channel values" : "inline channel values"} ${humanBytes(Math.max(0, cpBytes - r.checkpointBookkeepingBytes))}, ids/versions/versions_seen ${humanBytes(r.checkpointBookkeepingBytes)}`,
    );
  if (r.unreadableRows)
    out.push(
      `           ${plural(r.unreadableRows, "row")} could not be scanned (bytes counted, channels and messages not)${r.msgpackAudit.encrypted ? `; ${num(r.msgpackAudit.encrypted)} of the store's values are encrypted (+aes): ${AES_KEY_HINT}` : ""}`,
    );
  out.push("");
  if (r.channels.length) {
    const blobs = r.store === "postgres";
    const head = [
      "CHANNEL",
      "BYTES",
      "SHARE",
      blobs ? "INLINE" : "IN CHECKPOINTS",
      ...(blobs ? ["IN BLOBS"] : []),
      "IN WRITES",
    ];
    const rows = r.channels.map((c) => [
      c.channel,
      humanBytes(c.bytes),
      pct(c.bytes, pay),
      humanBytes(c.checkpointBytes),
      ...(blobs ? [humanBytes(c.blobBytes)] : []),
      humanBytes(c.writeBytes),
    ]);
    if (r.otherChannels)
      rows.push([
        `(${plural(r.otherChannels.channels, "other channel")})`,
        humanBytes(r.otherChannels.bytes),
        pct(r.otherChannels.bytes, pay),
        "",
        ...(blobs ? [""] : []),
        "",
      ]);
    out.push(...table(head, rows, ""), "");
  }
  if (r.messageClasses.length) {
    const rows = r.messageClasses
      .slice(0, top)
      .map((c) => [
        c.class,
        num(c.count),
        humanBytes(c.bytes),
        num(c.copies),
        humanBytes(c.copyBytes),
        pct(c.copyBytes, c.bytes),
      ]);
    out.push(...table(["MESSAGE CLASS", "STORED", "BYTES", "COPIES", "COPY BYTES", "COPIED"], rows, ""));
    const rep = r.repeated;
    out.push(
      `repeated   ${pct(rep.copyBytes, rep.messageBytes)} of message bytes (${humanBytes(rep.copyBytes)} in ${num(rep.copies)} of ${num(rep.messages)} stored messages) are byte-identical copies of a message stored earlier in the same thread`,
      "",
    );
  }
  if (r.topThreads.length) {
    const rows = r.topThreads.map((t) => [
      t.threadId,
      num(t.checkpoints),
      num(t.writes),
      ...(r.store === "postgres" ? [num(t.blobs)] : []),
      humanBytes(t.bytes),
      pct(t.bytes, pay),
      pct(t.copyBytes, t.bytes),
      tableTime(t.lastTs),
    ]);
    out.push(
      ...table(
        [
          "TOP THREADS",
          "CHECKPOINTS",
          "WRITES",
          ...(r.store === "postgres" ? ["BLOBS"] : []),
          "BYTES",
          "SHARE",
          "COPIES",
          "LAST",
        ],
        rows,
        "",
      ),
    );
    if (r.totals.threads > r.topThreads.length)
      out.push(`           … and ${plural(r.totals.threads - r.topThreads.length, "more thread")}`);
    out.push("");
  }
  if (r.days.length) {
    const shown = r.days.slice(-top);
    out.push(
      ...table(
        ["GROWTH (UTC DAY)", "CHECKPOINTS", "BYTES"],
        shown.map((d) => [d.day, num(d.checkpoints), humanBytes(d.bytes)]),
        "",
      ),
    );
    if (r.days.length > shown.length) {
      const earlier = r.days.slice(0, r.days.length - shown.length);
      out.push(
        `           … ${plural(earlier.length, "earlier day")}: ${num(earlier.reduce((n, d) => n + d.checkpoints, 0))} checkpoints, ${humanBytes(earlier.reduce((n, d) => n + d.bytes, 0))}`,
      );
    }
  }
  out.push(...renderAudit(r.msgpackAudit, top, r.uri));
  return out.join("\n").trimEnd() + "\n";
}

export function renderSaverStats(r: SaverStatsReport, what = "ckpt's own saver, one document per thread"): string {
  const out: string[] = [r.summary, ""];
  out.push(
    `store      ${r.uri} — ${what}${r.filter ? ` (threads: ${[...r.filter.threads, ...r.filter.match].join(", ")})` : ""}; measured in ${(r.elapsedMs / 1000).toFixed(2)} s`,
  );
  if (r.totals.unreadable) out.push(`           ${plural(r.totals.unreadable, "document")} no format reads`);
  out.push("");
  if (r.namespaces.length > 1)
    out.push(
      ...table(
        ["NAMESPACE", "THREADS", "BYTES"],
        r.namespaces.map((n) => [n.namespace, num(n.threads), humanBytes(n.bytes)]),
        "",
      ),
      "",
    );
  if (r.formats.length)
    out.push(
      ...table(
        ["FORMAT", "THREADS", "MESSAGES", "BYTES", "SHARE"],
        r.formats.map((f) => [
          f.format,
          num(f.threads),
          num(f.messages),
          humanBytes(f.bytes),
          pct(f.bytes, r.totals.bytes),
        ]),
        "",
      ),
      "",
    );
  if (r.topThreads.length) {
    out.push(
      ...table(
        ["TOP THREADS", "NAMESPACE", "FORMAT", "MESSAGES", "BYTES", "UPDATED"],
        r.topThreads.map((t) => [
          t.threadId,
          t.namespace,
          t.format ?? "?",
          t.messages === null ? "-" : num(t.messages),
          humanBytes(t.bytes),
          tableTime(t.updatedAt),
        ]),
        "",
      ),
      "",
    );
  }
  if (r.days.length)
    out.push(
      ...table(
        ["LAST UPDATED (UTC DAY)", "THREADS", "BYTES"],
        r.days.slice(-10).map((d) => [d.day, num(d.threads), humanBytes(d.bytes)]),
        "",
      ),
    );
  return out.join("\n").trimEnd() + "\n";
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${num(n)} ${n === 1 ? word : many}`;
}

/** A Mastra store's report: its memory tables, contents by role, part type and tool, resources, top threads. */
export function renderMastraStats(r: MastraStatsReport): string {
  const out: string[] = [r.summary, ""];
  out.push(
    `store      ${r.uri} — Mastra memory (${r.store === "sqlite" ? "LibSQL" : "PostgreSQL"})${r.filter ? ` (threads: ${[...r.filter.threads, ...r.filter.match].join(", ")})` : ""}; measured in ${(r.elapsedMs / 1000).toFixed(2)} s`,
  );
  if (r.totals.orphanMessages)
    out.push(`           ${plural(r.totals.orphanMessages, "message")} of no thread (Mastra never lists them)`);
  out.push("");
  out.push(
    ...table(
      ["TABLE", "ROWS", `STORED (${r.storedMethod})`],
      r.tables.map((t) => [t.table, num(t.rows), t.storedBytes === null ? "-" : humanBytes(t.storedBytes)]),
      "",
    ),
    "",
  );
  const content = r.totals.contentBytes;
  if (r.roles.length)
    out.push(
      ...table(
        ["ROLE", "ROWS", "BYTES", "SHARE"],
        r.roles.map((x) => [x.role, num(x.messages), humanBytes(x.bytes), pct(x.bytes, content)]),
        "",
      ),
      "",
    );
  if (r.parts.length)
    out.push(
      ...table(
        ["PART", "COUNT", "BYTES", "SHARE"],
        r.parts.map((x) => [x.type, num(x.count), humanBytes(x.bytes), pct(x.bytes, content)]),
        "",
      ),
      "",
    );
  if (r.tools.length)
    out.push(
      ...table(
        ["TOOL", "CALLS", "RESULTS", "RESULT BYTES"],
        r.tools.map((x) => [x.name, num(x.calls), num(x.results), humanBytes(x.resultBytes)]),
        "",
      ),
      "",
    );
  if (r.resources.length)
    out.push(
      ...table(
        ["RESOURCE", "THREADS", "ROWS", "BYTES", "WORKING MEMORY"],
        r.resources.map((x) => [
          x.resourceId,
          num(x.threads),
          num(x.messages),
          humanBytes(x.contentBytes),
          x.workingMemoryBytes ? humanBytes(x.workingMemoryBytes) : "-",
        ]),
        "",
      ),
      "",
    );
  if (r.topThreads.length)
    out.push(
      ...table(
        ["TOP THREADS", "RESOURCE", "ROWS", "BYTES", "UPDATED"],
        r.topThreads.map((t) => [
          t.threadId,
          t.resourceId,
          num(t.messages),
          humanBytes(t.bytes),
          tableTime(t.updatedAt),
        ]),
        "",
      ),
    );
  return out.join("\n").trimEnd() + "\n";
}

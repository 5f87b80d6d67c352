/**
 * One self-contained HTML page: the data as JSON in a `<script type="application/json">` (never executed), the
 * stylesheet and the script inline, and a Content-Security-Policy that lets only that one script run (by its hash)
 * and loads nothing from anywhere — so even markup that slipped into the data could neither run nor fetch.
 */
import { createHash } from "node:crypto";
import { stringifyJson } from "../base/json.js";
import type { DiffResult } from "../core/diff/types.js";
import type { CheckpointView, MessageView } from "./model.js";
import * as client from "./client.cjs";
import * as panels from "./client-panels.cjs";
import { escapeHtml, jsonForScript } from "./escape.js";
import { CSS } from "./style.js";

export interface HistoryItem {
  id: string;
  step: number;
  node?: string;
  /** ISO 8601 */
  time?: string;
  /** the diff from checkpoint `from` of the list: the parent when listed, else the one before (absent for the first) */
  diff?: DiffResult;
  from?: number;
  /** the parent's position in the list, when it is listed (a fork point has several children) */
  parent?: number;
  /** LangGraph: metadata.source (input, loop, update, fork) */
  source?: string;
  /** LangGraph: the state channels this step changed */
  changed?: string[];
  /** LangGraph: an interrupt was raised at this checkpoint, still pending or answered by a resume */
  interrupt?: "pending" | "resumed";
  /** LangGraph: a resume value was written here without an interrupt of this namespace (a subgraph's) */
  resumed?: boolean;
  /** LangGraph: a task failed here (an __error__ write) */
  error?: boolean;
}

export interface StoreListing {
  namespace: string;
  namespaces: string[];
  count: number;
  /** position of the first listed thread in the whole list */
  offset: number;
  threads: Array<{ threadId: string; bytes: number; updatedAt?: string; href: string }>;
  /** link to the next page, absent on the last */
  next?: string;
}

export interface PageData {
  kind: "checkpoint" | "diff" | "history" | "store";
  title: string;
  /** where the data came from (file name or redacted URI) */
  source?: string;
  /** link back to the store browser (served pages) */
  back?: string;
  pool: MessageView[];
  /** values the checkpoints' LangGraph channels and writes refer to by index (each distinct value once) */
  vals?: unknown[];
  checkpoints: CheckpointView[];
  /** kind "diff": checkpoints[0] → checkpoints[1]; `sides` names them */
  diff?: DiffResult;
  sides?: [string, string];
  /** kind "history": one item per checkpoint, oldest first */
  history?: HistoryItem[];
  /** kind "history": older checkpoints left out of the page */
  omitted?: number;
  /** the checkpoint shown first (default: the newest / side b) */
  start?: number;
  store?: StoreListing;
}

let script: { text: string; hash: string } | undefined;

/** The page script: every client function's source inside one closure, then `main()`. */
function pageScript(): { text: string; hash: string } {
  if (script) return script;
  // each module's functions in name order, as an ES module namespace lists them, however the module was loaded
  // (the bundled CLI requires them: a CommonJS exports object lists them in the order they were assigned)
  const byName = (m: object) =>
    Object.keys(m)
      .sort()
      .map((k) => (m as Record<string, unknown>)[k]);
  const fns = [...byName(client), ...byName(panels)].filter((f) => typeof f === "function") as Array<
    (...a: never[]) => unknown
  >;
  const text = compactScript(
    `(function(){"use strict";let S;const CHUNK_SIZE=50;\n${fns.map((f) => f.toString()).join("\n")}\nmain();})();`,
  );
  script = { text, hash: createHash("sha256").update(text).digest("base64") };
  return script;
}

/**
 * The script without the indentation at the start of its lines (about 7 KB of 45): whitespace there means nothing in
 * JavaScript outside a template literal, and no template literal of the client code spans lines
 * (test/view-xss.test.ts checks that the compacted script is the same program).
 */
export function compactScript(source: string): string {
  return source.replace(/^[ \t]+/gm, "");
}

/** The full page for `data`. Pure: the same data gives the same bytes. */
export function renderPage(data: PageData): string {
  const s = pageScript();
  const csp = policy(s.hash);
  const json = jsonForScript(stringifyJson(data));
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8">` +
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="generator" content="ckpt view"><meta name="referrer" content="no-referrer">` +
    `<title>${escapeHtml(data.title)}</title><style>${CSS}</style></head>\n<body>` +
    `<noscript><p>This page shows its content with JavaScript; the data is in the ckpt-data element of its source.</p></noscript>\n` +
    `<script type="application/json" id="ckpt-data">${json}</script>\n<script>${s.text}</script>\n</body></html>\n`
  );
}

/** The CSP a server should send with these pages (the same as the page's own meta element). */
export function pagePolicy(): string {
  return `${policy(pageScript().hash)}; frame-ancestors 'none'`;
}

/** Nothing loads but inline data: images; only the page's own script runs; no forms, no <base>. */
function policy(hash: string): string {
  return `default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`;
}

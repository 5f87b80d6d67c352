/// <reference lib="dom" />
/**
 * The page's script. Every exported function here is copied into the page as source text (page.ts joins their
 * `toString()` inside one closure that declares `S`), so they may use only each other, `S` and browser globals —
 * never imports or module variables. User text goes into the document with `textContent` / `createTextNode`;
 * the only markup inserted is message Markdown already rendered safely by markdown.ts (`h` fields).
 *
 * CommonJS (.cts): the bundled CLI (CommonJS, scripts/bundle.mjs) requires tsc's output of this file as it is, so the
 * page gets the same function text from either build (Node before 20.19 cannot require an ES module). These functions import
 * nothing, so tsc emits their bodies unchanged either way.
 */
import type { BlockView, CheckpointView, MessageView } from "./model.js";
import type { PageData } from "./page.js";
import type * as panels from "./client-panels.cjs";

export interface AppState {
  data: PageData;
  cur: number;
  cp: CheckpointView;
  msgs: MessageView[];
  /** tool call id → position of its result; result position → position of its call */
  resultAt: Map<string, number>;
  callAt: Map<number, number>;
  filled: Set<number>;
  chunks: HTMLElement[];
  /** builders of the panels not shown yet */
  lazy: Array<((p: HTMLElement) => void) | undefined>;
  observer?: IntersectionObserver;
  focus: number;
  hits: number[];
  hit: number;
  query: string;
  text?: string[];
  /** the tab shown, kept while moving along the timeline */
  tab: number;
  /** checkpoint positions in the timeline's order (a fork's branches one after the other) */
  order: number[];
}
declare let S: AppState;
/** messages rendered together as the reader scrolls near them (declared in the page's prologue) */
declare const CHUNK_SIZE: number;
declare const renderState: typeof panels.renderState,
  renderUsage: typeof panels.renderUsage,
  renderMeta: typeof panels.renderMeta,
  renderChannels: typeof panels.renderChannels,
  renderWrites: typeof panels.renderWrites,
  renderLgInterrupts: typeof panels.renderLgInterrupts;
declare const renderChanges: typeof panels.renderChanges,
  renderStore: typeof panels.renderStore,
  search: typeof panels.search;
declare const nextHit: typeof panels.nextHit, gotoMessage: typeof panels.gotoMessage, markHits: typeof panels.markHits;
declare const showHelp: typeof panels.showHelp, bindKeys: typeof panels.bindKeys;

/** el("div", {class: "x"}, child, "text") — strings become text nodes, never markup. */
export function el(
  tag: string,
  attrs?: Record<string, string | undefined> | null,
  ...kids: Array<Node | string | null | undefined>
): HTMLElement {
  const e = document.createElement(tag);
  if (attrs) for (const k in attrs) if (attrs[k] !== undefined) e.setAttribute(k, attrs[k]!);
  for (const c of kids)
    if (c !== null && c !== undefined) e.append(typeof c === "string" ? document.createTextNode(c) : c);
  return e;
}

export function fmtNum(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

export function fmtTime(ts: number | string | undefined): string {
  if (ts === undefined || ts === "") return "";
  const d = new Date(ts);
  return Number.isNaN(d.getTime())
    ? String(ts)
    : d
        .toISOString()
        .replace("T", " ")
        .replace(/\.000Z$/, "Z")
        .replace(/Z$/, " UTC");
}

export function pretty(v: unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2) ?? String(v);
}

export function main(): void {
  const raw = document.getElementById("ckpt-data")!.textContent!;
  const data = JSON.parse(raw) as PageData;
  S = {
    data,
    cur: 0,
    cp: data.checkpoints[0]!,
    msgs: [],
    resultAt: new Map(),
    callAt: new Map(),
    filled: new Set(),
    chunks: [],
    lazy: [],
    focus: -1,
    hits: [],
    hit: -1,
    query: "",
    // a graph without messages opens on its channels
    tab: data.checkpoints.some((c) => c.lg) && data.checkpoints.every((c) => c.messages.length === 0) ? 1 : 0,
    order: data.checkpoints.map((_, i) => i),
  };
  initTheme();
  buildLayout();
  if (data.kind === "store") return;
  bindKeys();
  const start = data.start ?? (data.kind === "history" ? data.checkpoints.length - 1 : data.kind === "diff" ? 1 : 0);
  showCheckpoint(start);
  const m = /^#m(\d+)$/.exec(location.hash);
  if (m) gotoMessage(Number(m[1]));
  document.documentElement.setAttribute("data-ready", "1");
}

export function initTheme(): void {
  let t: string | null = null;
  try {
    t = localStorage.getItem("ckpt-theme");
  } catch {
    t = null;
  }
  if (t !== "light" && t !== "dark") t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.setAttribute("data-theme", t);
}

export function toggleTheme(): void {
  const t = document.documentElement.getAttribute("data-theme") === "dark" ? "light" : "dark";
  document.documentElement.setAttribute("data-theme", t);
  try {
    localStorage.setItem("ckpt-theme", t);
  } catch {
    /* file:// pages may have no storage */
  }
  document.getElementById("theme")!.setAttribute("aria-label", `Switch to ${t === "dark" ? "light" : "dark"} theme`);
}

export function buildLayout(): void {
  const d = S.data;
  const tools = el("div", { class: "tools" });
  if (d.kind !== "store") {
    const q = el("input", {
      id: "q",
      type: "search",
      placeholder: "Search messages  ( / )",
      "aria-label": "Search messages",
      autocomplete: "off",
    }) as HTMLInputElement;
    q.addEventListener("input", () => search(q.value));
    q.addEventListener("keydown", (e) => {
      if (e.key === "Enter") nextHit(e.shiftKey ? -1 : 1);
      if (e.key === "Escape") q.blur();
    });
    const go = el("input", {
      id: "goto",
      type: "number",
      min: "0",
      placeholder: "#",
      "aria-label": "Jump to message number",
    }) as HTMLInputElement;
    go.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && go.value !== "") gotoMessage(Number(go.value));
    });
    const prev = el("button", { type: "button", "aria-label": "Previous match" }, "↑");
    const next = el("button", { type: "button", "aria-label": "Next match" }, "↓");
    prev.addEventListener("click", () => nextHit(-1));
    next.addEventListener("click", () => nextHit(1));
    tools.append(
      q,
      el("span", { id: "qcount", class: "count", "aria-live": "polite" }),
      prev,
      next,
      el("label", null, "Go to ", go),
    );
  }
  const theme = el("button", { id: "theme", type: "button", "aria-label": "Switch theme" }, "◐ Theme");
  theme.addEventListener("click", toggleTheme);
  const help = el("button", { id: "help", type: "button", "aria-label": "Keyboard shortcuts" }, "?");
  help.addEventListener("click", showHelp);
  tools.append(theme, help);
  const head = el("header", { class: "top" });
  if (d.back) head.append(el("a", { href: d.back }, "← store"));
  head.append(el("h1", null, d.title), el("span", { id: "sub", class: "sub" }), tools);
  const layout = el("div", { class: "layout" });
  if (d.kind === "history") layout.append(buildTimeline());
  const main = el("main", { id: "main", tabindex: "-1" });
  layout.append(main);
  document.body.append(el("a", { class: "skip", href: "#main" }, "Skip to content"), head, layout);
  if (d.kind === "store") renderStore(main);
}

export function buildTimeline(): HTMLElement {
  const h = S.data.history!;
  const nav = el(
    "nav",
    { class: "timeline", "aria-label": "Checkpoint history" },
    el("h2", null, `History (${h.length} checkpoints)`),
  );
  if (S.data.omitted) nav.append(el("p", { class: "empty" }, `${fmtNum(S.data.omitted)} older checkpoints not shown`));
  // a tree: children by parent; a checkpoint with several children is a fork, each child's line one branch
  const kids: number[][] = h.map(() => []);
  const roots: number[] = [];
  h.forEach((x, i) => (x.parent !== undefined && x.parent !== i ? kids[x.parent]!.push(i) : roots.push(i)));
  const newest = new Set<number>();
  for (let i: number | undefined = h.length - 1; i !== undefined && !newest.has(i); i = h[i]!.parent) newest.add(i);
  S.order = [];
  const item = (i: number): HTMLElement => {
    const x = h[i]!;
    const b = el(
      "button",
      { type: "button", "data-i": String(i) },
      el("span", null, `step ${x.step} `),
      el("span", { class: "node" }, x.node ?? ""),
    );
    const marks: string[] = [];
    if (x.source && x.source !== "loop") {
      b.append(" ", el("span", { class: "badge src" }, x.source));
      marks.push(`source ${x.source}`);
    }
    if (x.interrupt) {
      const t = x.interrupt === "pending" ? "interrupt pending" : "interrupted → resumed";
      b.append(" ", el("span", { class: `badge ${x.interrupt === "pending" ? "warn" : "ok"} int` }, t));
      marks.push(t);
    } else if (x.resumed) {
      b.append(" ", el("span", { class: "badge ok int" }, "resumed"));
      marks.push("resumed");
    }
    if (x.error) {
      b.append(" ", el("span", { class: "badge err" }, "error"));
      marks.push("error");
    }
    if (x.changed?.length) {
      const t = `changed: ${x.changed.slice(0, 4).join(", ")}${x.changed.length > 4 ? ` +${x.changed.length - 4}` : ""}`;
      b.append(el("span", { class: "chg" }, t));
      marks.push(t);
    }
    b.append(el("time", null, fmtTime(x.time)));
    b.setAttribute(
      "aria-label",
      [`step ${x.step}`, x.node ? `node ${x.node}` : "", ...marks].filter(Boolean).join(", "),
    );
    b.addEventListener("click", () => {
      showCheckpoint(i);
      history.replaceState(null, "", `#c${i}`);
    });
    S.order.push(i);
    return el("li", null, b);
  };
  const seen = new Set<number>();
  const line = (start: number, ol: HTMLElement): void => {
    for (let i = start; !seen.has(i); ) {
      seen.add(i);
      ol.append(item(i));
      const c = kids[i]!;
      if (c.length === 1) {
        i = c[0]!;
        continue;
      }
      c.forEach((k, n) => {
        const sub = el("ol");
        const li = el(
          "li",
          { class: "branch", "data-from": String(i) },
          el(
            "span",
            { class: "fork" },
            `↳ branch ${n + 1} of ${c.length} from step ${h[i]!.step}${newest.has(k) ? " (newest)" : ""}`,
          ),
          sub,
        );
        ol.append(li);
        line(k, sub);
      });
      return;
    }
  };
  const ol = el("ol");
  for (const r of roots) line(r, ol);
  // parent links that loop (a damaged store) leave checkpoints no root reaches: listed after the rest
  h.forEach((_, i) => seen.has(i) || line(i, ol));
  nav.append(ol);
  return nav;
}

/** Show checkpoint i of the page: transcript, state, usage, metadata, and the changes that led to it. */
export function showCheckpoint(i: number): void {
  const d = S.data;
  S.cur = i;
  S.cp = d.checkpoints[i]!;
  S.msgs = S.cp.messages.map((k) => d.pool[k]!);
  S.text = undefined;
  S.focus = -1;
  pairTools();
  document
    .querySelectorAll("nav.timeline button")
    .forEach((b) => b.setAttribute("aria-current", String(b.getAttribute("data-i") === String(i))));
  const cp = S.cp;
  const lg = cp.lg;
  const state = lg?.channels.filter((c) => c.kind === "state").length ?? 0;
  document.getElementById("sub")!.textContent = [
    cp.format,
    `thread ${cp.threadId}`,
    lg?.namespace ? `namespace ${lg.namespace}` : "",
    `step ${lg?.step ?? cp.step}`,
    d.history?.[i]?.node ? `node ${d.history[i]!.node}` : "",
    lg && !lg.channels.some((c) => c.kind === "messages")
      ? `${fmtNum(state)} channels`
      : `${fmtNum(S.msgs.length)} messages`,
  ]
    .filter(Boolean)
    .join(" · ");
  const main = document.getElementById("main")!;
  main.replaceChildren();
  const diff = d.kind === "diff" ? d.diff : d.kind === "history" ? d.history![i]!.diff : undefined;
  if (d.kind === "diff") main.append(diffSwitch());
  const from = d.history?.[i]?.from;
  if (diff)
    main.append(
      renderChanges(
        diff,
        d.kind === "history" && from !== undefined
          ? `Changes since step ${d.history![from]!.step}${from !== i - 1 ? " (its parent)" : ""}`
          : "Changes",
      ),
    );
  else if (d.kind === "history")
    main.append(el("section", { class: "changes" }, el("h2", null, "First checkpoint of this thread")));
  if (cp.unreadable?.length)
    main.append(
      el(
        "aside",
        { class: "interrupt unreadable", role: "alert" },
        el("p", null, el("strong", null, "Not read whole"), ": shown without the parts below"),
        ...cp.unreadable.map((t) => el("p", null, t)),
      ),
    );
  if (lg) renderLgInterrupts(main, lg);
  main.append(buildTabs());
  if (S.query) search(S.query);
}

export function diffSwitch(): HTMLElement {
  const nav = el("nav", { class: "pager", "aria-label": "Which side" }, el("span", null, "Show:"));
  ["before (a)", "after (b)"].forEach((label, k) => {
    const b = el(
      "button",
      { type: "button", "aria-pressed": String(S.cur === k) },
      `${label}: ${S.data.sides?.[k] ?? ""}`,
    );
    b.addEventListener("click", () => showCheckpoint(k));
    nav.append(b);
  });
  return nav;
}

export function pairTools(): void {
  S.resultAt = new Map();
  S.callAt = new Map();
  const callPos = new Map<string, number>();
  S.msgs.forEach((m, p) => {
    if (m.role === "assistant") for (const b of m.blocks) if (b.t === "call") callPos.set(b.id, p);
    if (m.role === "toolResult" && m.toolCallId !== undefined) {
      if (!S.resultAt.has(m.toolCallId)) S.resultAt.set(m.toolCallId, p);
      const c = callPos.get(m.toolCallId);
      if (c !== undefined) S.callAt.set(p, c);
    }
  });
}

export function buildTabs(): DocumentFragment {
  const f = document.createDocumentFragment();
  const lg = S.cp.lg;
  const names = lg
    ? ["Transcript", "Channels", "Writes", "Usage", "Metadata"]
    : ["Transcript", "State", "Usage", "Metadata"];
  const list = el("div", { role: "tablist", "aria-label": "Views" });
  const panels = names.map((n) =>
    el("section", { class: "panel", id: `panel-${n.toLowerCase()}`, role: "tabpanel", "aria-label": n }),
  );
  if (S.tab >= names.length) S.tab = 0;
  names.forEach((n, k) => {
    const count =
      n === "State"
        ? ` (${S.cp.state.todos.length} todos, ${Object.keys(S.cp.state.files).length} files)`
        : n === "Channels"
          ? ` (${lg!.channels.filter((c) => c.kind !== "plumbing").length})`
          : n === "Writes"
            ? ` (${lg!.tasks.reduce((a, t) => a + t.writes.length, 0)})`
            : n === "Transcript"
              ? ` (${fmtNum(S.msgs.length)})`
              : "";
    const t = el(
      "button",
      {
        role: "tab",
        id: `tab-${n.toLowerCase()}`,
        type: "button",
        "aria-selected": String(k === S.tab),
        "aria-controls": `panel-${n.toLowerCase()}`,
      },
      n + count,
    );
    t.addEventListener("click", () => selectTab(k));
    list.append(t);
    if (k !== S.tab) panels[k]!.hidden = true;
  });
  f.append(list, ...panels);
  renderTranscript(panels[0]!);
  // the other panels are built the first time they are shown (a long history's usage table costs time at load)
  const later: Array<((p: HTMLElement) => void) | undefined> = lg
    ? [undefined, (p) => renderChannels(p, S.cp), (p) => renderWrites(p, lg), renderUsage, renderMeta]
    : [undefined, (p) => renderState(p, S.cp.state), renderUsage, renderMeta];
  panels.forEach((p, k) => {
    if (!later[k]) return;
    if (k === S.tab) later[k]!(p);
    else p.setAttribute("data-lazy", String(k));
  });
  S.lazy = later;
  return f;
}

export function selectTab(k: number): void {
  const panel = document.querySelectorAll("section.panel")[k] as HTMLElement | undefined;
  if (panel?.hasAttribute("data-lazy")) {
    panel.removeAttribute("data-lazy");
    S.lazy[k]?.(panel);
  }
  if (!panel) return;
  S.tab = k;
  document.querySelectorAll("[role=tab]").forEach((t, j) => t.setAttribute("aria-selected", String(j === k)));
  document.querySelectorAll("section.panel").forEach((p, j) => ((p as HTMLElement).hidden = j !== k));
}

export function renderTranscript(panel: HTMLElement): void {
  S.observer?.disconnect();
  S.filled = new Set();
  S.chunks = [];
  const box = el("div", { id: "msgs" });
  const n = S.msgs.length;
  if (n === 0)
    box.append(
      el(
        "p",
        { class: "empty" },
        S.cp.lg && !S.cp.lg.channels.some((c) => c.kind === "messages")
          ? "No messages: this graph has no messages channel; its state is on the Channels tab."
          : "No messages.",
      ),
    );
  S.observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries) if (e.isIntersecting) fillChunk(Number((e.target as HTMLElement).dataset.c));
    },
    { rootMargin: "2000px 0px" },
  );
  for (let c = 0; c * CHUNK_SIZE < n; c++) {
    const ch = el("div", {
      class: "chunk",
      "data-c": String(c),
      style: `min-height:${Math.min(CHUNK_SIZE, n - c * CHUNK_SIZE) * 90}px`,
    });
    box.append(ch);
    S.chunks.push(ch);
    S.observer.observe(ch);
  }
  panel.append(box);
  fillChunk(0); // the first messages at once; the rest as they come near the viewport
  if (S.cp.interrupt && !S.cp.lg) {
    const it = S.cp.interrupt;
    // several tool calls may await approval at once: one note each
    for (const a of [it, ...(it.more ?? [])])
      panel.append(
        el(
          "aside",
          { class: "interrupt", role: "note" },
          el("strong", null, "Interrupted: pending approval "),
          el("code", null, a.toolName),
          ` [${a.toolCallId}] at step ${it.step}`,
          a.args !== undefined ? el("pre", null, pretty(a.args)) : null,
        ),
      );
  }
}

export function fillChunk(c: number): void {
  if (S.filled.has(c)) return;
  const ch = S.chunks[c];
  if (!ch) return;
  S.filled.add(c);
  const end = Math.min(S.msgs.length, (c + 1) * CHUNK_SIZE);
  const f = document.createDocumentFragment();
  for (let p = c * CHUNK_SIZE; p < end; p++) f.append(renderMessage(p));
  ch.append(f);
  ch.style.minHeight = "";
  if (S.query) markHits(ch);
}

export function renderMessage(p: number): HTMLElement {
  const m = S.msgs[p]!;
  const known = m.role === "user" || m.role === "assistant" || m.role === "system" || m.role === "toolResult";
  const err = m.isError || m.error !== undefined || m.stop === "error" || m.stop === "aborted";
  const a = el("article", {
    class: `msg role-${known ? m.role : "ext"}${known ? "" : " ext"}${err ? " error" : ""}`,
    id: `m${p}`,
    "data-i": String(p),
    tabindex: "-1",
    "aria-label": `message ${p}, ${m.role}`,
  });
  const h = el(
    "header",
    null,
    el("a", { class: "idx", href: `#m${p}` }, `#${p}`),
    el("span", { class: "role" }, m.role === "toolResult" ? "tool result" : m.role),
  );
  if (!known && m.kind) h.append(el("span", null, m.kind));
  if (m.toolName) h.append(el("code", null, m.toolName));
  if (m.model) h.append(el("span", null, m.model + (m.provider ? ` (${m.provider})` : "")));
  if (m.ts !== undefined) h.append(el("time", { datetime: new Date(m.ts).toISOString() }, fmtTime(m.ts)));
  if (m.usage)
    h.append(el("span", { title: "input / output tokens" }, `in ${fmtNum(m.usage[0]!)} · out ${fmtNum(m.usage[1]!)}`));
  if (m.stop && m.stop !== "stop" && m.stop !== "toolUse")
    h.append(el("span", { class: `badge ${err ? "err" : "warn"}` }, m.stop));
  if (m.isError) h.append(el("span", { class: "badge err" }, "error"));
  const callAt = S.callAt.get(p);
  if (callAt !== undefined)
    h.append(el("a", { href: `#m${callAt}`, "data-goto": String(callAt) }, `↑ call in #${callAt}`));
  a.append(h);
  const body = el("div", { class: "body" });
  if (m.error) body.append(el("p", { class: "badge err", role: "alert" }, `Error: ${m.error}`));
  for (const b of m.blocks) body.append(renderBlock(b, p));
  if (!known) body.append(el("pre", null, pretty(m.data)));
  a.append(body);
  return a;
}

export function textBlock(x: string, cls: string): HTMLElement {
  const d = el("div", { class: cls });
  for (const para of x.split(/\n{2,}/)) d.append(el("p", null, para));
  return d;
}

export function htmlBlock(h: string): HTMLElement {
  const d = el("div", { class: "md" });
  d.innerHTML = h; // rendered by markdown.ts with raw HTML disabled and link protocols filtered
  return d;
}

export function renderBlock(b: BlockView, p: number): Node {
  switch (b.t) {
    case "md":
      return htmlBlock(b.h);
    case "txt":
      return textBlock(b.x, "txt");
    case "pre":
      return el("pre", { class: "out" }, b.x);
    case "think": {
      const body = b.h !== undefined ? htmlBlock(b.h) : textBlock(b.x ?? "", "txt");
      return el(
        "details",
        { class: "think" },
        el(
          "summary",
          null,
          b.redacted ? "Reasoning (redacted)" : `Reasoning (${fmtNum((b.x ?? b.h ?? "").length)} characters)`,
        ),
        body,
      );
    }
    case "call":
      return renderCall(b, p);
    case "img":
      return el("img", { class: "inline", src: b.src, alt: `image (${b.mime})`, loading: "lazy" });
    case "ref": {
      const label = `[${b.kind}${b.name ? " " + b.name : ""} · ${b.mime}${b.bytes !== undefined ? " · " + fmtNum(b.bytes) + " bytes" : ""}]`;
      return b.url
        ? el("p", null, el("a", { href: b.url, rel: "noopener noreferrer nofollow", target: "_blank" }, label))
        : el("p", { class: "empty" }, label);
    }
  }
}

export function renderCall(b: Extract<BlockView, { t: "call" }>, p: number): HTMLElement {
  const r = S.resultAt.get(b.id);
  const res = r !== undefined ? S.msgs[r] : undefined;
  const argsText = pretty(b.args);
  const preview = argsText.replace(/\s+/g, " ").slice(0, 120);
  const status =
    res === undefined
      ? el("span", { class: "badge warn" }, b.state && !b.state.startsWith("output-") ? b.state : "no result")
      : res.isError
        ? el("span", { class: "badge err" }, "error")
        : el("span", { class: "badge ok" }, "ok");
  const d = el(
    "details",
    { class: `tool${res?.isError ? " error" : ""}`, "data-call": b.id },
    el(
      "summary",
      null,
      "⚙ ",
      el("code", { class: "tool-name" }, b.name),
      " ",
      el("span", { class: "preview" }, preview),
      " ",
      status,
    ),
  ) as HTMLDetailsElement;
  d.addEventListener("toggle", () => {
    if (!d.open || d.childElementCount > 1) return;
    d.append(el("h4", null, `Arguments · call ${b.id}`), el("pre", { class: "args" }, argsText));
    if (res && r !== undefined) {
      d.append(el("h4", null, "Result ", el("a", { href: `#m${r}`, "data-goto": String(r) }, `(message #${r})`)));
      for (const x of res.blocks) d.append(renderBlock(x, p));
    } else d.append(el("p", { class: "empty" }, "No result in this checkpoint."));
  });
  return d;
}

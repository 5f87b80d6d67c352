/// <reference lib="dom" />
/**
 * The page's script, continued: state, usage, metadata, diff changes, the store browser, search and keys.
 * Same rules as client.cts (these functions are copied into the page as source text).
 */
import type { CheckpointView, StateView } from "./model.js";
import type { ChannelView, LangGraphView } from "./langgraph.js";
import type { Change, DiffResult, TextDiff } from "../core/diff/types.js";
import type * as client from "./client.cjs";

/** the page's state (client.cts) */
declare let S: client.AppState;
declare const CHUNK_SIZE: number;
declare const el: typeof client.el,
  fmtNum: typeof client.fmtNum,
  fmtTime: typeof client.fmtTime,
  pretty: typeof client.pretty,
  fillChunk: typeof client.fillChunk;
declare const showCheckpoint: typeof client.showCheckpoint,
  selectTab: typeof client.selectTab,
  toggleTheme: typeof client.toggleTheme,
  htmlBlock: typeof client.htmlBlock;

export function renderState(panel: HTMLElement, st: StateView): void {
  panel.append(el("h2", null, `Todos (${st.todos.length})`));
  if (st.todos.length === 0) panel.append(el("p", { class: "empty" }, "No todos."));
  else {
    const icon: Record<string, string> = { completed: "✔", in_progress: "▶", pending: "○", cancelled: "✕" };
    const ul = el("ul", { class: "todos" });
    for (const t of st.todos)
      ul.append(
        el(
          "li",
          { "data-status": t.status },
          el(
            "span",
            { class: `st-${t.status}`, title: t.status },
            `${icon[t.status] ?? "•"} ${t.status.replace("_", " ")}`,
          ),
          el("span", null, t.content),
          el("code", { class: "empty" }, t.id),
        ),
      );
    panel.append(ul);
  }
  renderFiles(panel, st);
  if (st.scratchpad.length) {
    panel.append(el("h2", null, `Scratchpad notes (${st.scratchpad.length})`));
    for (const n of st.scratchpad) {
      const where = `${n.thread ? "thread " + n.thread : "global"}${n.tick !== undefined && n.tick !== null ? ", tick " + n.tick : ""}`;
      panel.append(
        el(
          "article",
          { class: "msg role-system note" },
          el("header", null, el("span", { class: "role" }, n.heading), el("span", null, where)),
          htmlBlock(n.h),
        ),
      );
    }
  }
  if (st.contexts !== undefined && st.contexts !== null && typeof st.contexts === "object") {
    const entries = Object.entries(st.contexts as Record<string, unknown>);
    panel.append(el("h2", null, `Contexts (${entries.length})`));
    for (const [k, v] of entries)
      panel.append(el("details", { open: "" }, el("summary", null, k), el("pre", null, pretty(v))));
  }
  const other = Object.entries(st.other);
  if (other.length) {
    panel.append(el("h2", null, `Other channels (${other.length})`));
    for (const [k, v] of other) panel.append(el("details", null, el("summary", null, k), el("pre", null, pretty(v))));
  }
}

/** A pooled value (PageData.vals) as text: strings as they are, other values as indented JSON. */
export function valueNode(k: number | undefined): HTMLElement {
  if (k === undefined) return el("p", { class: "empty" }, "no value stored at this checkpoint");
  const v = S.data.vals?.[k];
  if (typeof v === "string") return el("pre", { class: "val" }, v);
  if (v === null || typeof v !== "object") return el("pre", { class: "val" }, String(v));
  return el("pre", { class: "val" }, JSON.stringify(v, null, 2));
}

/** LangGraph: every channel with its value, version and whether this step updated it; then the todos and files. */
export function renderChannels(panel: HTMLElement, cp: CheckpointView): void {
  const lg = cp.lg!;
  const shown = lg.channels.filter((c) => c.kind !== "plumbing");
  const plumbing = lg.channels.filter((c) => c.kind === "plumbing");
  panel.append(
    el("h2", null, `Channels (${shown.length})`),
    el(
      "p",
      { class: "next" },
      lg.next.length ? `Next: ${lg.next.join(", ")}` : "Next: nothing scheduled (the run ended here)",
    ),
  );
  if (shown.length === 0) panel.append(el("p", { class: "empty" }, "No state channels."));
  const channel = (c: ChannelView): HTMLElement => {
    const head = el("h3", null, el("code", null, c.name));
    if (c.changed) head.append(" ", el("span", { class: "badge ok" }, "updated at this step"));
    if (c.version !== undefined) head.append(" ", el("span", { class: "ver" }, `version ${c.version}`));
    const sec = el("section", { class: `channel${c.changed ? " changed" : ""}`, "data-channel": c.name }, head);
    if (c.kind === "messages") {
      const a = el("a", { href: "#m0", "data-goto": "0" }, "Transcript");
      sec.append(el("p", null, `${fmtNum(c.count ?? 0)} messages — on the `, a, " tab"));
    } else sec.append(valueNode(c.v));
    return sec;
  };
  for (const c of shown) panel.append(channel(c));
  if (plumbing.length)
    panel.append(
      el(
        "details",
        { class: "plumbing" },
        el("summary", null, `Graph plumbing channels (${plumbing.length}): triggers and internal values`),
        ...plumbing.map(channel),
      ),
    );
  if (cp.state.todos.length || Object.keys(cp.state.files).length) renderState(panel, cp.state);
}

/** LangGraph: the pending writes of this checkpoint, one table per task. */
export function renderWrites(panel: HTMLElement, lg: LangGraphView): void {
  const n = lg.tasks.reduce((a, t) => a + t.writes.length, 0);
  panel.append(
    el("h2", null, `Pending writes (${n}) of ${lg.tasks.length} ${lg.tasks.length === 1 ? "task" : "tasks"}`),
    el(
      "p",
      { class: "empty" },
      "What the tasks of the next step wrote from this checkpoint; the next checkpoint applies them (after an interrupt they wait here for the resume).",
    ),
  );
  const label: Record<string, string> = {
    interrupt: "interrupt raised",
    resume: "resume value",
    error: "error",
    trigger: "triggers a node",
    scheduled: "scheduled",
    write: "channel write",
  };
  for (const t of lg.tasks) {
    const head = el(
      "h3",
      null,
      t.task === "00000000-0000-0000-0000-000000000000"
        ? "No task (written from outside the graph: a resume or an update)"
        : `Task${t.node ? " " + t.node : ""} `,
    );
    if (t.task !== "00000000-0000-0000-0000-000000000000") head.append(el("code", { class: "ver" }, t.task));
    const body = el("tbody");
    for (const w of t.writes)
      body.append(
        el(
          "tr",
          { "data-kind": w.kind },
          el("td", null, el("code", null, w.channel)),
          el(
            "td",
            null,
            el(
              "span",
              {
                class: `badge ${w.kind === "interrupt" ? "warn" : w.kind === "error" ? "err" : w.kind === "resume" ? "ok" : "plain"}`,
              },
              label[w.kind] ?? w.kind,
            ),
          ),
          el(
            "td",
            null,
            w.kind === "trigger" && S.data.vals?.[w.v] === null ? el("span", { class: "empty" }, "—") : valueNode(w.v),
          ),
        ),
      );
    panel.append(
      el(
        "section",
        { class: "task", "data-task": t.task },
        head,
        el(
          "table",
          { class: "writes" },
          el("thead", null, el("tr", null, el("th", null, "channel"), el("th", null, "what"), el("th", null, "value"))),
          body,
        ),
      ),
    );
  }
  if (lg.tasks.length === 0) panel.append(el("p", { class: "empty" }, "No pending writes."));
}

/** LangGraph: the interrupts raised at this checkpoint and the resume that answered them (above the tabs). */
export function renderLgInterrupts(main: HTMLElement, lg: LangGraphView): void {
  if (!lg.interrupts.length && !lg.resumes.length) return;
  const box = el("aside", { class: "interrupt", role: "note" });
  for (const i of lg.interrupts) {
    const task = lg.tasks.find((t) => t.task === i.task);
    box.append(
      el(
        "p",
        null,
        el("strong", null, "Interrupt"),
        ` raised by ${task?.node ? "node " + task.node : "task " + i.task}${i.id ? ` (id ${i.id})` : ""}: `,
        el(
          "span",
          { class: `badge ${i.resumed ? "ok" : "warn"}` },
          i.resumed ? "resumed" : "pending: waiting for a resume",
        ),
      ),
      valueNode(i.v),
    );
  }
  if (lg.resumes.length) {
    box.append(el("p", null, el("strong", null, "Resumed with")));
    for (const r of lg.resumes) box.append(valueNode(r));
  }
  main.append(box);
}

export function renderFiles(panel: HTMLElement, st: StateView): void {
  const paths = Object.keys(st.files).sort();
  panel.append(el("h2", null, `Files (${paths.length})`));
  if (paths.length === 0) {
    panel.append(el("p", { class: "empty" }, "No files."));
    return;
  }
  const view = el("pre", { class: "file", "aria-live": "polite" }, "Pick a file.");
  const show = (path: string) => {
    const f = st.files[path]!;
    view.textContent = "";
    view.append(
      el("strong", null, path),
      ` — ${f.lines.length} lines${f.modified ? ", modified " + fmtTime(f.modified) : ""}\n\n`,
      f.lines.map((l, i) => `${String(i + 1).padStart(4)}  ${l}`).join("\n"),
    );
  };
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    let node = root;
    const parts = p.split("/").filter(Boolean);
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = p;
      else node = (node[part + "/"] ??= {}) as Record<string, unknown>;
    });
  }
  const build = (node: Record<string, unknown>): HTMLElement => {
    const ul = el("ul");
    for (const [name, v] of Object.entries(node)) {
      if (typeof v === "string") {
        const b = el("button", { type: "button", "data-path": v }, name);
        b.addEventListener("click", () => show(v));
        ul.append(el("li", null, b));
      } else
        ul.append(
          el("li", null, el("details", { open: "" }, el("summary", null, name), build(v as Record<string, unknown>))),
        );
    }
    return ul;
  };
  panel.append(el("div", { class: "files" }, el("nav", { class: "tree", "aria-label": "Files" }, build(root)), view));
  show(paths[0]!);
}

export function renderUsage(panel: HTMLElement): void {
  const turns: Array<{ p: number; u: number[] }> = [];
  S.msgs.forEach((m, p) => m.usage && turns.push({ p, u: m.usage }));
  const names = ["input", "output", "cache read", "cache write", "total", "reasoning"];
  const total = [0, 0, 0, 0, 0, 0];
  for (const t of turns) t.u.forEach((v, k) => (total[k]! += v));
  panel.append(el("h2", null, `Usage: ${fmtNum(turns.length)} assistant turns`));
  const tr = (cells: string[], th = false) => el("tr", null, ...cells.map((c) => el(th ? "th" : "td", null, c)));
  panel.append(
    el(
      "table",
      { class: "usage" },
      el("thead", null, tr(["", ...names], true)),
      el("tbody", null, tr(["total", ...total.map(fmtNum)])),
    ),
  );
  if (turns.length === 0) return;
  panel.append(
    usageChart(turns),
    el(
      "p",
      { class: "legend" },
      el("span", null, el("i", { style: "background:var(--accent)" }), "input"),
      el("span", null, el("i", { style: "background:var(--ok)" }), "output"),
    ),
  );
  const body = el("tbody");
  for (const t of turns.slice(0, 1000)) {
    const a = el("a", { href: `#m${t.p}`, "data-goto": String(t.p) }, `#${t.p}`);
    body.append(el("tr", null, el("td", null, a), ...t.u.map((v) => el("td", null, fmtNum(v)))));
  }
  panel.append(
    el("h2", null, "Per turn"),
    el("table", { class: "usage" }, el("thead", null, tr(["message", ...names], true)), body),
  );
  if (turns.length > 1000)
    panel.append(
      el("p", { class: "empty" }, `First 1,000 of ${fmtNum(turns.length)} turns listed; the chart shows all.`),
    );
}

/** Input and output tokens per turn as bars (turns grouped into at most 300 bars). */
export function usageChart(turns: Array<{ p: number; u: number[] }>): SVGElement {
  const NS = "http://www.w3.org/2000/svg";
  const bars = Math.min(300, turns.length);
  const per = Math.ceil(turns.length / bars);
  const groups: Array<{ p: number; i: number; o: number; n: number }> = [];
  for (let k = 0; k < turns.length; k += per) {
    const g = turns.slice(k, k + per);
    groups.push({
      p: g[0]!.p,
      i: g.reduce((s, t) => s + t.u[0]!, 0),
      o: g.reduce((s, t) => s + t.u[1]!, 0),
      n: g.length,
    });
  }
  const max = Math.max(1, ...groups.map((g) => g.i + g.o));
  const W = 900,
    H = 140,
    w = W / groups.length;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "chart");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `tokens per turn, largest ${fmtNum(max)}`);
  groups.forEach((g, k) => {
    const hi = (g.i / max) * (H - 4),
      ho = (g.o / max) * (H - 4);
    for (const [cls, y, h] of [
      ["in", H - hi, hi],
      ["out", H - hi - ho, ho],
    ] as const) {
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("class", cls);
      r.setAttribute("x", String(k * w));
      r.setAttribute("width", String(Math.max(w - 1, 0.5)));
      r.setAttribute("y", String(y));
      r.setAttribute("height", String(h));
      const t = document.createElementNS(NS, "title");
      t.textContent = `#${g.p}${g.n > 1 ? ` (+${g.n - 1} turns)` : ""}: in ${fmtNum(g.i)}, out ${fmtNum(g.o)}`;
      r.append(t);
      r.addEventListener("click", () => gotoMessage(g.p));
      svg.append(r);
    }
  });
  return svg;
}

export function renderMeta(panel: HTMLElement): void {
  const cp = S.cp;
  const lg = cp.lg;
  const own = new Set(lg ? ["checkpoint", "parent"] : []);
  const rows: Array<[string, string | undefined]> = [
    ["format", cp.format ? cp.format + (cp.version ? ` (${cp.version})` : "") : undefined],
    ["thread", cp.threadId],
    ...(lg
      ? ([
          ["checkpoint", lg.id],
          ["parent", lg.parent ?? "none (the first checkpoint)"],
          ["namespace", lg.namespace || "(root graph)"],
          ["source", lg.source],
          ["next", lg.next.join(", ") || "nothing scheduled"],
        ] as Array<[string, string | undefined]>)
      : []),
    ["step", String(lg?.step ?? cp.step)],
    ["messages", fmtNum(S.msgs.length)],
    ["created", cp.createdAt ? fmtTime(cp.createdAt) : undefined],
    ["updated", cp.updatedAt ? fmtTime(cp.updatedAt) : undefined],
    ...Object.entries(cp.meta).filter(([k]) => !own.has(k)),
    ["source", S.data.source],
  ];
  const dl = el("dl", { class: "meta" });
  for (const [k, v] of rows) if (v !== undefined && v !== "") dl.append(el("dt", null, k), el("dd", null, v));
  panel.append(el("h2", null, "Metadata"), dl);
}

export function textDiff(t: TextDiff): HTMLElement {
  if (t.mode === "lines") return patchBlock(t.patch);
  const p = el("p", { class: "wdiff" });
  for (const part of t.parts)
    p.append(
      part.added
        ? el("ins", null, part.value)
        : part.removed
          ? el("del", null, part.value)
          : document.createTextNode(part.value),
    );
  return p;
}

export function patchBlock(patch: string): HTMLElement {
  const pre = el("pre", { class: "patch" });
  for (const line of patch.split("\n"))
    pre.append(
      el(
        "span",
        {
          class:
            line.startsWith("+") && !line.startsWith("+++")
              ? "a"
              : line.startsWith("-") && !line.startsWith("---")
                ? "d"
                : "",
        },
        line,
      ),
    );
  return pre;
}

export function changeItem(c: Change): HTMLElement {
  const li = el("li", { "data-kind": c.kind });
  const op = (s: string) => el("span", { class: "op" }, s + " ");
  const fields = (fs?: Array<{ pointer: string; before?: unknown; after?: unknown }>) =>
    fs?.length
      ? el(
          "ul",
          null,
          ...fs.map((f) =>
            el(
              "li",
              null,
              el("code", null, f.pointer || "/"),
              `: ${JSON.stringify(f.before) ?? "—"} → ${JSON.stringify(f.after) ?? "—"}`,
            ),
          ),
        )
      : null;
  switch (c.kind) {
    case "message": {
      const at = c.b ?? c.a;
      li.append(
        op(c.op),
        `${c.role} `,
        at !== undefined
          ? el("a", { href: `#m${at}`, "data-goto": String(at), "data-side": c.b !== undefined ? "b" : "a" }, `#${at}`)
          : "",
        ` ${c.preview}`,
      );
      for (const b of c.blocks ?? [])
        li.append(el("div", null, op(`${b.op} ${b.type}`), b.text ? textDiff(b.text) : null, fields(b.fields)));
      li.append(fields(c.fields) ?? "");
      break;
    }
    case "todo":
      li.append(
        op(`todo ${c.op}`),
        `${c.id}: ${c.content}`,
        c.before || c.after ? ` (${c.before ?? "—"} → ${c.after ?? "—"})` : "",
      );
      break;
    case "file":
      li.append(
        op(`file ${c.op}`),
        el("code", null, c.path),
        ` +${c.added} −${c.removed}`,
        c.patch ? patchBlock(c.patch) : "",
        fields(c.fields) ?? "",
      );
      break;
    case "scratchpad":
      li.append(op(`note ${c.op}`), c.heading, c.text ? textDiff(c.text) : "");
      break;
    case "context":
      li.append(op(`context ${c.op}`), c.name, fields(c.fields) ?? "");
      break;
    case "usage":
      li.append(
        op("usage"),
        `input ${c.delta.input >= 0 ? "+" : ""}${fmtNum(c.delta.input)}, output ${c.delta.output >= 0 ? "+" : ""}${fmtNum(c.delta.output)} (total ${fmtNum(c.after.input + c.after.output)})`,
      );
      break;
    case "model":
      li.append(op(c.field), `${c.before ?? "—"} → ${c.after ?? "—"}`);
      break;
    default:
      li.append(
        // a LangGraph state channel is named as one
        op(S.cp?.lg && c.pointer.startsWith("/state/") ? "channel" : "field"),
        el("code", null, S.cp?.lg && c.pointer.startsWith("/state/") ? c.pointer.slice(7) : c.pointer || "/"),
        `: ${JSON.stringify(c.before) ?? "—"} → ${JSON.stringify(c.after) ?? "—"}`,
      );
  }
  return li;
}

export function renderChanges(d: DiffResult, title: string): HTMLElement {
  const s = el(
    "section",
    { class: "changes", "aria-label": "Changes" },
    el("h2", null, title),
    el("p", { class: "summary" }, d.identical ? "No changes." : d.summary.text),
  );
  for (const n of d.notes) s.append(el("p", { class: "empty" }, n));
  // format-specific extras (ext: store ids, channel versions, …) are folded away below the changes that matter
  const isExt = (c: Change) => c.kind === "field" && c.pointer.startsWith("/ext/");
  const main = d.changes.filter((c) => !isExt(c));
  const ext = d.changes.filter(isExt);
  const ul = el("ul", { class: "changes" });
  for (const c of main.slice(0, 2000)) ul.append(changeItem(c));
  if (main.length > 2000) ul.append(el("li", { class: "empty" }, `… ${fmtNum(main.length - 2000)} more changes`));
  s.append(ul);
  if (ext.length)
    s.append(
      el(
        "details",
        { class: "ext" },
        el("summary", null, `${fmtNum(ext.length)} format-specific fields changed (ext)`),
        el("ul", { class: "changes" }, ...ext.slice(0, 2000).map(changeItem)),
      ),
    );
  s.addEventListener("click", (e) => {
    const a = (e.target as HTMLElement).closest("a[data-goto]");
    if (!a) return;
    e.preventDefault();
    if (S.data.kind === "diff") {
      const side = a.getAttribute("data-side") === "a" ? 0 : 1;
      if (side !== S.cur) showCheckpoint(side);
    }
    gotoMessage(Number(a.getAttribute("data-goto")));
  });
  return s;
}

export function renderStore(main: HTMLElement): void {
  const st = S.data.store!;
  main.append(el("h2", null, `${fmtNum(st.count)} threads${st.namespace ? ` in namespace ${st.namespace}` : ""}`));
  if (st.namespaces.length > 1) {
    const nav = el("nav", { class: "pager", "aria-label": "Namespaces" }, "Namespaces:");
    for (const ns of st.namespaces)
      nav.append(ns === st.namespace ? el("strong", null, ns) : el("a", { href: `?ns=${encodeURIComponent(ns)}` }, ns));
    main.append(nav);
  }
  const pager = () => {
    const nav = el(
      "nav",
      { class: "pager", "aria-label": "Pages" },
      el("a", { href: `?ns=${encodeURIComponent(st.namespace)}` }, "« first"),
    );
    nav.append(
      el(
        "span",
        { class: "range" },
        st.threads.length
          ? `threads ${fmtNum(st.offset + 1)}–${fmtNum(st.offset + st.threads.length)} of ${fmtNum(st.count)}`
          : "no threads",
      ),
    );
    if (st.next) nav.append(el("a", { href: st.next, rel: "next", class: "next" }, "next »"));
    return nav;
  };
  main.append(pager());
  const body = el("tbody");
  for (const t of st.threads)
    body.append(
      el(
        "tr",
        null,
        el("td", null, el("a", { href: t.href }, t.threadId)),
        el("td", { class: "n" }, fmtNum(t.bytes)),
        el("td", null, t.updatedAt ? fmtTime(t.updatedAt) : ""),
      ),
    );
  main.append(
    el(
      "table",
      { class: "threads" },
      el("thead", null, el("tr", null, el("th", null, "thread"), el("th", null, "bytes"), el("th", null, "updated"))),
      body,
    ),
    pager(),
  );
}

export function searchText(p: number): string {
  const m = S.msgs[p]!;
  const parts: string[] = [m.role, m.toolName ?? "", m.error ?? ""];
  for (const b of m.blocks) {
    if (b.t === "md")
      parts.push(
        b.h
          .replace(/<[^>]*>/g, "")
          .replace(/&lt;/g, "<")
          .replace(/&gt;/g, ">")
          .replace(/&quot;/g, '"')
          .replace(/&#39;/g, "'")
          .replace(/&amp;/g, "&"),
      );
    else if (b.t === "txt" || b.t === "pre") parts.push(b.x);
    else if (b.t === "think") parts.push(b.x ?? b.h ?? "");
    else if (b.t === "call") parts.push(b.name, JSON.stringify(b.args) ?? "");
  }
  if (m.data !== undefined) parts.push(JSON.stringify(m.data) ?? "");
  return parts.join("\n").toLowerCase();
}

export function search(q: string): void {
  S.query = q.trim().toLowerCase();
  document.querySelectorAll("article.hit").forEach((a) => a.classList.remove("hit"));
  unmark();
  const count = document.getElementById("qcount")!;
  if (!S.query) {
    S.hits = [];
    count.textContent = "";
    return;
  }
  S.text ??= S.msgs.map((_, p) => searchText(p));
  S.hits = [];
  S.text.forEach((t, p) => t.includes(S.query) && S.hits.push(p));
  S.hit = -1;
  count.textContent = S.hits.length ? `${fmtNum(S.hits.length)} messages` : "no match";
  S.chunks.forEach((c) => markHits(c));
}

export function nextHit(dir: number): void {
  if (!S.hits.length) return;
  S.hit = (S.hit + dir + S.hits.length) % S.hits.length;
  const p = S.hits[S.hit]!;
  document.getElementById("qcount")!.textContent = `${S.hit + 1} / ${fmtNum(S.hits.length)}`;
  gotoMessage(p);
}

export function unmark(): void {
  document.querySelectorAll("#msgs mark").forEach((m) => m.replaceWith(document.createTextNode(m.textContent ?? "")));
  document.getElementById("msgs")?.normalize();
}

/** Highlight the query inside the rendered messages of one chunk (text nodes only). */
export function markHits(root: HTMLElement): void {
  const q = S.query;
  if (!q) return;
  for (const a of Array.from(root.querySelectorAll("article.msg"))) {
    const p = Number(a.getAttribute("data-i"));
    if (!S.text?.[p]?.includes(q)) continue;
    a.classList.add("hit");
    const walk = document.createTreeWalker(a, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    while (walk.nextNode()) nodes.push(walk.currentNode as Text);
    for (const n of nodes) {
      const v = n.data,
        lower = v.toLowerCase();
      let at = lower.indexOf(q);
      if (at < 0) continue;
      const f = document.createDocumentFragment();
      let last = 0;
      while (at >= 0) {
        f.append(v.slice(last, at), el("mark", null, v.slice(at, at + q.length)));
        last = at + q.length;
        at = lower.indexOf(q, last);
      }
      f.append(v.slice(last));
      n.replaceWith(f);
    }
  }
}

export function gotoMessage(p: number): void {
  if (!(p >= 0 && p < S.msgs.length)) return;
  selectTab(0);
  fillChunk(Math.floor(p / CHUNK_SIZE));
  const a = document.getElementById(`m${p}`);
  if (!a) return;
  document.querySelector("article.current")?.classList.remove("current");
  a.classList.add("current");
  S.focus = p;
  a.scrollIntoView({ block: "center" });
  a.focus({ preventScroll: true });
  history.replaceState(null, "", `#m${p}`);
}

export function showHelp(): void {
  let d = document.getElementById("keys") as HTMLDialogElement | null;
  if (!d) {
    const keys: Array<[string, string]> = [
      ["j / k", "next / previous message"],
      ["g / G", "first / last message"],
      ["/", "search"],
      ["n / N", "next / previous match"],
      ["e", "open or close the tool calls of the current message"],
      ["t", "light / dark theme"],
      ["1 – 5", "the tabs, in order (transcript, state or channels, …)"],
      ["[ / ]", "previous / next checkpoint (history)"],
      ["?", "this help"],
    ];
    d = el(
      "dialog",
      { id: "keys", "aria-label": "Keyboard shortcuts" },
      el("h2", null, "Keyboard"),
      el("dl", { class: "meta" }, ...keys.flatMap(([k, v]) => [el("dt", null, el("kbd", null, k)), el("dd", null, v)])),
      el("form", { method: "dialog" }, el("button", null, "Close")),
    ) as HTMLDialogElement;
    document.body.append(d);
  }
  d.showModal();
}

/** The previous / next checkpoint in the timeline's order (along a branch, then the next branch). */
export function stepTimeline(dir: number): void {
  if (S.data.kind === "checkpoint") return;
  const at = S.order.indexOf(S.cur);
  const k = at < 0 ? S.cur + dir : S.order[at + dir];
  if (k !== undefined && k >= 0 && k < S.data.checkpoints.length) showCheckpoint(k);
}

export function bindKeys(): void {
  document.addEventListener("click", (e) => {
    const a = (e.target as HTMLElement).closest?.("a[data-goto]");
    if (a && !a.closest("section.changes")) {
      e.preventDefault();
      gotoMessage(Number(a.getAttribute("data-goto")));
    }
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)) return;
    const n = S.msgs.length;
    const act: Record<string, () => void> = {
      j: () => gotoMessage(Math.min(n - 1, S.focus + 1)),
      k: () => gotoMessage(Math.max(0, S.focus - 1)),
      g: () => gotoMessage(0),
      G: () => gotoMessage(n - 1),
      "/": () => (document.getElementById("q") as HTMLInputElement).focus(),
      n: () => nextHit(1),
      N: () => nextHit(-1),
      t: toggleTheme,
      "?": showHelp,
      e: () => {
        const ds = Array.from(document.querySelectorAll(`#m${S.focus} details.tool`)) as HTMLDetailsElement[];
        const open = !ds.every((d) => d.open);
        ds.forEach((d) => (d.open = open));
      },
      "1": () => selectTab(0),
      "2": () => selectTab(1),
      "3": () => selectTab(2),
      "4": () => selectTab(3),
      "5": () => selectTab(4),
      "[": () => stepTimeline(-1),
      "]": () => stepTimeline(1),
    };
    const f = act[e.key];
    if (f) {
      e.preventDefault();
      f();
    }
  });
}

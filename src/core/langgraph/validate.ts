/**
 * `ckpt validate` of a LangGraph store (all of it, one thread, or one checkpoint): every payload decodes with its
 * type tag; the tuple (envelope, metadata, pending writes, LangChain messages) matches schemas/formats/langgraph;
 * the integrity rules of LANGGRAPH.md §7 (rule ids `langgraph/…`; messages cite no document); the generic
 * conversation lints; and cross-library hazards (which library would fail, and why) as warnings.
 *
 * Streams: the reader's `scan` yields checkpoints in (thread, namespace, id) order in bounded batches; what is kept
 * between checkpoints is one summary per checkpoint of the current thread (ids, step, ts, versions) — memory does not
 * grow with the store. Pure: the reader (I/O) is passed in.
 */
import { inputError } from "../../base/errors.js";
import type { Issue } from "../../schema/types.js";
import { canonicalLint } from "../../schema/lint.js";
import { schemaIssues } from "../../schema/validate.js";
import { langgraphAdapter, pendingInterrupts } from "../../formats/langgraph/adapter.js";
import { lintMessageOf } from "../../formats/langgraph/messages.js";
import { compareVersions } from "../../formats/langgraph/serde.js";
import { CANNOT_REBUILD, cannotRebuild, missingKeyReport } from "../../formats/langgraph/unreadable.js";
import {
  isRecord,
  tupleDocument,
  WRITES_IDX_MAP,
  type LgCheckpointTuple,
  type LgReader,
  type LgRowRef,
  type LgVersion,
} from "../../formats/langgraph/types.js";

export interface LgValidateOptions {
  /** only this thread */
  threadId?: string;
  /** only this checkpoint (a full id) of `threadId`; the thread is still read for the parent-chain rules */
  checkpointId?: string;
  /** stop collecting after this many errors (the rest is not validated) */
  maxErrors?: number;
  /** the library that will read the store: cross-library hazards are reported for it only (default: only when the
   * store holds both libraries' rows) */
  library?: "python" | "js";
  /** only this checkpoint namespace of the thread ("" the root graph): the whole thread is still read for the
   * rules that look across namespaces, findings and counts are this namespace's */
  namespace?: string;
}

export interface LgValidateResult {
  checkpoints: number;
  writes: number;
  issues: Issue[];
  /** set when maxErrors stopped the run */
  stoppedEarly?: boolean;
}

/** An issue at a store row: `file` names the row (`<uri>#<thread>@<id>`, namespace and table), `row` has its keys. */
export type LgIssue = Issue & { row: LgRowRef };

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** The label of a row in findings: `<uri>#<thread>@<checkpoint>` + namespace + table (+ task/idx, channel/version). */
export function rowLabel(uri: string, r: LgRowRef): string {
  let s = `${uri}#${r.threadId}${r.checkpointId ? `@${r.checkpointId}` : ""}`;
  if (r.namespace) s += ` ns=${r.namespace}`;
  const extra: string[] = [r.table];
  if (r.taskId !== undefined) extra.push(`task=${r.taskId}`);
  if (r.idx !== undefined) extra.push(`idx=${r.idx}`);
  if (r.channel !== undefined && r.table !== "writes" && r.table !== "checkpoint_writes")
    extra.push(`channel=${r.channel}`);
  if (r.version !== undefined) extra.push(`version=${r.version}`);
  return `${s} [${extra.join(" ")}]`;
}

/** What is kept of each checkpoint of the current (thread, namespace) for the parent-chain rules. */
interface Summary {
  id: string;
  parentId: string | null;
  step: number | undefined;
  source: unknown;
  ts: string;
  versions: Record<string, LgVersion>;
  row: LgRowRef;
}

/** Store-wide counts behind the cross-library warnings (one finding per hazard, at its first row). */
interface Hazard {
  first: LgRowRef;
  threads: Set<string> | number;
  detail: string;
}

const PY_TAGS = new Set(["msgpack", "null", "bytearray", "pickle"]);

class Run {
  readonly issues: Issue[] = [];
  checkpoints = 0;
  writes = 0;
  errors = 0;
  private group: Summary[] = [];
  private groupKey = "";
  /** ids per namespace of the current thread (rule 18) */
  private threadIds = new Map<string, Set<string>>();
  /** the oldest checkpoint id per namespace of the current thread: a parent older than it was pruned */
  private threadOldest = new Map<string, string>();
  private thread: string | undefined;
  private threadVersionType: { type: string; row: LgRowRef } | undefined;
  private threadOldV = false;
  /** the previous checkpoint of the group's messages (see `MessageMemo`) */
  private memo: MessageMemo | undefined;
  readonly hazards = new Map<string, Hazard>();

  constructor(
    readonly uri: string,
    readonly opts: LgValidateOptions,
  ) {}

  get full(): boolean {
    return this.opts.maxErrors !== undefined && this.errors >= this.opts.maxErrors;
  }

  add(severity: Issue["severity"], rule: string, row: LgRowRef, pointer: string, message: string): void {
    if (
      this.opts.checkpointId !== undefined &&
      row.checkpointId !== undefined &&
      row.checkpointId !== this.opts.checkpointId
    )
      return;
    if (this.opts.namespace !== undefined && row.namespace !== this.opts.namespace) return;
    if (severity === "error") {
      if (this.full) return;
      this.errors++;
    }
    const i: LgIssue = { severity, rule, message, pointer, file: rowLabel(this.uri, row), row };
    this.issues.push(i);
  }

  hazard(kind: string, row: LgRowRef, detail: string): void {
    const h = this.hazards.get(kind);
    if (!h) this.hazards.set(kind, { first: row, threads: new Set([row.threadId]), detail });
    else if (h.threads instanceof Set) {
      h.threads.add(row.threadId);
      if (h.threads.size > 10_000) h.threads = h.threads.size; // an estimate from here on: memory stays flat
    }
  }

  /** One checkpoint tuple: decoding, schema, per-checkpoint rules; then the chain rules when its group ends. */
  tuple(t: LgCheckpointTuple): void {
    if (this.opts.namespace === undefined || t.namespace === this.opts.namespace) {
      this.checkpoints++;
      this.writes += t.pendingWrites.length;
    }
    if (t.threadId !== this.thread) this.endThread(t.threadId);
    const key = `${t.threadId}\0${t.namespace}`;
    if (key !== this.groupKey) {
      this.endGroup();
      this.groupKey = key;
    }
    if (
      (this.opts.checkpointId === undefined || t.checkpointId === this.opts.checkpointId) &&
      (this.opts.namespace === undefined || t.namespace === this.opts.namespace)
    )
      this.checkOne(t);
    const ids = this.threadIds.get(t.namespace) ?? this.threadIds.set(t.namespace, new Set()).get(t.namespace)!;
    if (ids.has(t.checkpointId))
      this.add(
        "error",
        "langgraph/duplicate-checkpoint",
        t.row,
        "",
        "two rows with this (thread_id, checkpoint_ns, checkpoint_id): the libraries would read either",
      );
    ids.add(t.checkpointId);
    const o = this.threadOldest.get(t.namespace);
    if (o === undefined || t.checkpointId < o) this.threadOldest.set(t.namespace, t.checkpointId);
    if (t.namespace !== "" && (this.opts.checkpointId === undefined || t.checkpointId === this.opts.checkpointId))
      parentsRule(this, t, this.threadIds, this.threadOldest);
    const cp = t.checkpoint;
    this.group.push({
      id: t.checkpointId,
      parentId: t.parentId,
      step: typeof t.metadata.step === "number" ? t.metadata.step : undefined,
      source: t.metadata.source,
      ts: typeof cp.ts === "string" ? cp.ts : "",
      versions: isRecord(cp.channel_versions) ? (cp.channel_versions as Record<string, LgVersion>) : {},
      row: t.row,
    });
  }

  private checkOne(t: LgCheckpointTuple): void {
    decodeIssues(this, t);
    const doc = tupleDocument(t, this.uri);
    const list = t.checkpoint.channel_values.messages;
    const msgs = Array.isArray(list) ? (list as unknown[]) : [];
    const same = sameAsBefore(this.memo, msgs);
    const known = writtenBefore(this.memo, msgs, same);
    const issues = schemaIssues(
      langgraphAdapter.schema,
      known ? withoutKnown(doc, msgs, known) : doc,
      "",
      undefined,
      false,
    );
    // a checkpoint that did not decode is an empty stand-in: what its schema says of it is no finding of the store
    const undecoded = t.issues.some((d) => d.fatal && d.pointer === "/checkpoint");
    for (const i of issues)
      if (!(undecoded && i.pointer.startsWith("/checkpoint/")))
        this.add("error", i.rule, rowOfPointer(t, i.pointer), i.pointer, i.message);
    envelopeRules(this, t);
    writeRules(this, t);
    versionRules(this, t);
    blobRules(this, t);
    crossLibrary(this, t);
    const lint = lintConversation(this, t, doc, msgs, same, this.memo);
    this.memo = { msgs, clean: cleanFlags(msgs.length, issues), lint, written: cleanWrittenMessages(t, issues) };
  }

  /** Thread-wide version type (rule 12 across checkpoints) and the v<4 note, once per thread. */
  versionType(type: string, row: LgRowRef, pointer: string): void {
    if (!this.threadVersionType) this.threadVersionType = { type, row };
    else if (this.threadVersionType.type !== type) {
      this.add(
        "error",
        "langgraph/mixed-version-types",
        row,
        pointer,
        `this thread mixes ${this.threadVersionType.type} versions (e.g. checkpoint ${this.threadVersionType.row.checkpointId}) and ${type} versions: Python fails comparing them ('>' not supported between 'str' and 'int'), JS fails on string versions`,
      );
      this.threadVersionType = { type, row }; // one finding per switch
    }
  }

  oldVersion(t: LgCheckpointTuple): void {
    if (this.threadOldV) return;
    this.threadOldV = true;
    this.add(
      "warning",
      "langgraph/old-checkpoint-version",
      t.row,
      "/checkpoint/v",
      `checkpoint v${t.checkpoint.v} (< 4): the libraries migrate it on load (v<3 channel names, v<4 pending_sends → __pregel_tasks); first such checkpoint of the thread`,
    );
  }

  private endThread(next: string | undefined): void {
    this.endGroup();
    this.groupKey = "";
    this.thread = next;
    this.threadIds = new Map();
    this.threadOldest = new Map();
    this.threadVersionType = undefined;
    this.threadOldV = false;
  }

  private endGroup(): void {
    if (this.group.length) chainRules(this, this.group);
    this.group = [];
    this.memo = undefined;
  }

  finish(): void {
    this.endThread(undefined);
  }
}

/** The row a schema pointer belongs to: a pending write's row for /pendingWrites/i…, else the checkpoint row. */
function rowOfPointer(t: LgCheckpointTuple, pointer: string): LgRowRef {
  const m = /^\/pendingWrites\/(\d+)/.exec(pointer);
  const w = m ? t.pendingWrites[Number(m[1])] : undefined;
  if (!w) return t.row;
  return {
    ...t.row,
    table: t.row.store === "postgres" ? "checkpoint_writes" : "writes",
    taskId: w.taskId,
    idx: w.idx,
    channel: w.channel,
  };
}

/** Rule 13: payloads that did not decode with their tag (errors) or decoded lossily (warnings). */
function decodeIssues(run: Run, t: LgCheckpointTuple): void {
  for (const d of t.issues) {
    // what ckpt itself cannot read (a reducer it does not know, a serialization it does not decode) is not the
    // store's fault: a warning of its own kind, never an error
    if (cannotRebuild(d)) {
      run.add(
        "warning",
        CANNOT_REBUILD,
        d.row,
        d.pointer,
        `ckpt cannot read this part (the library can): ${d.message}`,
      );
      continue;
    }
    // DeltaChannel values that cannot be rebuilt (formats/langgraph/delta.ts): rules of their own
    if (d.reason.startsWith("delta-")) {
      run.add("error", `langgraph/${d.reason}`, d.row, d.pointer, d.message);
      continue;
    }
    run.add(
      d.fatal ? "error" : "warning",
      d.fatal ? "langgraph/undecodable" : `langgraph/lossy-decode`,
      d.row,
      d.pointer,
      `${d.message}`,
    );
  }
}

/** Rules 1, 17, 19 on one checkpoint. */
function envelopeRules(run: Run, t: LgCheckpointTuple): void {
  const cp = t.checkpoint;
  const decoded = !t.issues.some((d) => d.fatal && d.pointer === "/checkpoint");
  if (decoded && cp.id !== t.checkpointId)
    run.add(
      "error",
      "langgraph/id-mismatch",
      t.row,
      "/checkpoint/id",
      `the row's checkpoint_id is ${t.checkpointId} but the checkpoint says ${JSON.stringify(cp.id)}: the libraries key the row by one and report the other`,
    );
  if (decoded && typeof cp.v === "number" && ![1, 2, 3, 4].includes(cp.v))
    run.add(
      "warning",
      "langgraph/checkpoint-version",
      t.row,
      "/checkpoint/v",
      `checkpoint v${cp.v} is none of 1–4 (Python and JS write 4)`,
    );
  else if (decoded && typeof cp.v === "number" && cp.v < 4) run.oldVersion(t);
  if (t.namespace !== "" && !(isRecord(t.metadata.parents) && typeof t.metadata.parents[""] === "string")) {
    run.add(
      "warning",
      "langgraph/subgraph-without-parent",
      t.row,
      "/metadata/parents",
      `a subgraph namespace's checkpoint should name its root checkpoint in metadata.parents[""]`,
    );
  }
}

/** Rule 9: special channels use their fixed negative idx, regular writes idx ≥ 0. */
function writeRules(run: Run, t: LgCheckpointTuple): void {
  t.pendingWrites.forEach((w, i) => {
    const want = WRITES_IDX_MAP[w.channel];
    const bad = want !== undefined ? w.idx !== want : w.idx < 0;
    if (!bad) return;
    const row = rowOfPointer(t, `/pendingWrites/${i}`);
    run.add(
      "error",
      "langgraph/write-idx",
      row,
      `/pendingWrites/${i}/idx`,
      want !== undefined
        ? `a ${w.channel} write has idx ${w.idx}; the libraries write and upsert it at ${want}`
        : `a regular write (channel ${w.channel}) has the negative idx ${w.idx}, reserved for special channels`,
    );
  });
}

/** Rules 11 and 12 inside one checkpoint. */
function versionRules(run: Run, t: LgCheckpointTuple): void {
  const cv = isRecord(t.checkpoint.channel_versions)
    ? (t.checkpoint.channel_versions as Record<string, LgVersion>)
    : {};
  let type: string | undefined;
  for (const [c, v] of Object.entries(cv)) {
    const ty = typeof v === "string" ? "string" : "integer";
    if (type === undefined) {
      type = ty;
      run.versionType(ty, t.row, `/checkpoint/channel_versions/${esc(c)}`);
    } else if (ty !== type) {
      run.add(
        "error",
        "langgraph/mixed-version-types",
        t.row,
        `/checkpoint/channel_versions/${esc(c)}`,
        `channel versions mix ${type} and ${ty} in one checkpoint: Python fails comparing them, JS fails on the string ones`,
      );
      break;
    }
  }
  const seen = isRecord(t.checkpoint.versions_seen) ? t.checkpoint.versions_seen : {};
  for (const [node, m] of Object.entries(seen)) {
    if (!isRecord(m)) continue;
    for (const [c, v] of Object.entries(m as Record<string, LgVersion>)) {
      const cur = cv[c];
      if (cur === undefined || typeof cur !== typeof v) continue;
      if (compareVersions(v, cur) > 0)
        run.add(
          "error",
          "langgraph/seen-ahead",
          t.row,
          `/checkpoint/versions_seen/${esc(node)}/${esc(c)}`,
          `node ${node} has seen version ${JSON.stringify(v)} of ${c}, newer than the channel's ${JSON.stringify(cur)}: the node will not run again on its next update`,
        );
    }
  }
}

/** Rule 14 (Postgres): every versioned channel has its value (inline, blob or an `empty` row), as the writer left it. */
function blobRules(run: Run, t: LgCheckpointTuple): void {
  for (const s of t.channelSources ?? []) {
    if (s.from === "blob" || s.from === "empty") continue; // the row is there (built below only for a finding)
    const row: LgRowRef = { ...t.row, table: "checkpoint_blobs", channel: s.channel, version: String(s.version) };
    const ptr = `/checkpoint/channel_versions/${esc(s.channel)}`;
    if (s.from === "none" && t.library === "js") {
      run.add(
        "error",
        "langgraph/missing-blob",
        row,
        ptr,
        `no checkpoint_blobs row for channel ${s.channel} version ${s.version}: LangGraph JS writes one for every versioned channel (json or empty), so the value was lost`,
      );
    } else if (s.from === "inline" && t.checkpoint.channel_values[s.channel] === true && t.library === "python") {
      run.add(
        "error",
        "langgraph/missing-blob",
        row,
        ptr,
        `channel ${s.channel} holds the DeltaSnapshot sentinel (true) inline but its checkpoint_blobs row is missing: the channel would reconstruct as empty`,
      );
    }
  }
}

/** Cross-library hazards (§5.5, §3.3, §1.3): counted per store, reported once each at the end. */
function crossLibrary(run: Run, t: LgCheckpointTuple): void {
  const tags = [t.serde.checkpoint, ...t.pendingWrites.map((w) => w.type)].filter(
    (x): x is string => typeof x === "string",
  );
  const py = tags.find((x) => PY_TAGS.has(x) || x.includes("+"));
  if (py) run.hazard("js-cannot-load", t.row, py);
  const vs = Object.values(isRecord(t.checkpoint.channel_versions) ? t.checkpoint.channel_versions : {});
  if (vs.some((v) => typeof v === "string")) run.hazard("string-versions", t.row, "");
  else if (vs.some((v) => typeof v === "number")) run.hazard("integer-versions", t.row, "");
  const inline = (t.channelSources ?? []).filter((s) => s.from === "inline").map((s) => s.channel);
  if (inline.length) run.hazard("js-drops-inline", t.row, inline.join(", "));
}

/** The library each hazard hits when it reads the store. */
const HAZARD_READER: Record<string, "python" | "js"> = {
  "js-cannot-load": "js",
  "string-versions": "js",
  "integer-versions": "python",
  "js-drops-inline": "js",
};

const HAZARD_TEXT: Record<string, (h: Hazard) => string> = {
  "js-cannot-load": (h) =>
    `LangGraph JS cannot load these checkpoints: they carry Python serde tags (e.g. '${h.detail}'), and JS loadsTyped knows only json and bytes ('Unknown serialization type: ${h.detail}'); convert the rows (ckpt migrate) before a JS app reads them`,
  "string-versions": () =>
    `Python's string channel versions: LangGraph JS reads them, but its next invoke on the thread fails ('Please override this method to use string versions.'); rewrite them to integers for JS`,
  "integer-versions": () =>
    `JS integer channel versions: LangGraph Python reads them, but resuming the thread fails before writing anything (TypeError: '>' not supported between instances of 'str' and 'int'); rewrite them to padded strings for Python`,
  "js-drops-inline": (h) =>
    `channel values kept inline in the checkpoints JSONB (e.g. ${h.detail}): LangGraph JS PostgresSaver reads channel values from checkpoint_blobs only and would silently drop them`,
};

/**
 * The hazards that are findings: with `--library`, those that hit that library; without, only in a store that holds
 * both libraries' rows (Python's string channel versions or serde tags beside JS's integer versions) — a healthy
 * store of one library is not at fault for what the other library would do with it (issue #38: `--strict` failed
 * every healthy Python store).
 */
function reportHazards(run: Run): void {
  const has = (k: string) => run.hazards.has(k);
  const both = (has("string-versions") || has("js-cannot-load")) && has("integer-versions");
  for (const [kind, h] of run.hazards) {
    if (run.opts.library !== undefined ? HAZARD_READER[kind] !== run.opts.library : !both) continue;
    const count = h.threads instanceof Set ? h.threads.size : h.threads;
    const n =
      count === 1
        ? `thread '${h.first.threadId}'`
        : `${count}${h.threads instanceof Set ? "" : "+"} threads (first: '${h.first.threadId}')`;
    run.add("warning", `langgraph/cross-library/${kind}`, h.first, "", `${n}: ${HAZARD_TEXT[kind]!(h)}`);
  }
}

/** A next step is scheduled: a trigger channel holds a value, or Send packets wait (LANGGRAPH.md §2.2, §4). */
function midStep(t: LgCheckpointTuple): boolean {
  const cv = t.checkpoint.channel_values;
  for (const k in cv)
    if (
      k.startsWith("branch:to:") ||
      (k === "__pregel_tasks" && Array.isArray(cv[k]) && (cv[k] as unknown[]).length > 0)
    )
      return true;
  return false;
}

/**
 * The messages of the previous checkpoint of the (thread, namespace) being read: each checkpoint holds the whole
 * conversation, so most of its messages are the ones the previous checkpoint held at the same index. A message equal
 * to one that passed the schema there is not validated again, and its lint form is reused: the work per checkpoint
 * follows what changed, not the length of the conversation. (Message schemas and lint forms depend on the message
 * alone, not on its neighbours.)
 */
interface MessageMemo {
  msgs: readonly unknown[];
  /** clean[k]: msgs[k] had no schema finding */
  clean: boolean[];
  /** lint form of each message */
  lint: ReturnType<typeof lintMessageOf>[];
  /** the messages of its pending `messages` writes that had no schema finding (the next checkpoint's new messages) */
  written: unknown[];
}

const MESSAGES_PTR = "/checkpoint/channel_values/messages";

/** Structural equality of decoded JSON-like values (key order ignored). */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(y, k) || !deepEqual(x[k], y[k])) return false;
    n++;
  }
  for (const _k in y) n--;
  return n === 0;
}

/** same[k]: message k equals the clean message k of the previous checkpoint; undefined when none does. */
function sameAsBefore(memo: MessageMemo | undefined, msgs: readonly unknown[]): boolean[] | undefined {
  if (!memo || memo.msgs.length === 0 || msgs.length === 0) return undefined;
  const same: boolean[] = new Array(msgs.length).fill(false);
  let any = false;
  for (let k = 0; k < msgs.length && k < memo.msgs.length; k++) {
    if (memo.clean[k] && deepEqual(msgs[k], memo.msgs[k])) same[k] = any = true;
  }
  return any ? same : undefined;
}

/**
 * known[k]: message k needs no schema check: it is the same as before (`same`), or equals a message of the previous
 * checkpoint's pending `messages` writes that passed there — a step's new message is written before the checkpoint
 * that holds it, and a write's messages meet the same message schema (pending-write.json, checkpoint.json).
 */
function writtenBefore(
  memo: MessageMemo | undefined,
  msgs: readonly unknown[],
  same: boolean[] | undefined,
): boolean[] | undefined {
  if (!memo || memo.written.length === 0) return same;
  let known: boolean[] | undefined;
  for (let k = 0; k < msgs.length; k++) {
    const m = msgs[k];
    if (same?.[k] || typeof m !== "object" || m === null || !memo.written.some((w) => deepEqual(m, w))) continue;
    known ??= same ? same.slice() : new Array<boolean>(msgs.length).fill(false);
    known[k] = true;
  }
  return known ?? same;
}

/** The messages of a tuple's pending `messages` writes without a schema finding at, under or above the write. */
function cleanWrittenMessages(t: LgCheckpointTuple, issues: readonly Issue[]): unknown[] {
  const out: unknown[] = [];
  t.pendingWrites.forEach((w, i) => {
    if (w.channel !== "messages" || !Array.isArray(w.value)) return;
    const base = `/pendingWrites/${i}`;
    if (issues.some(({ pointer: p }) => p === "" || p === "/pendingWrites" || p === base || p.startsWith(`${base}/`)))
      return;
    out.push(...w.value);
  });
  return out;
}

/**
 * The document with the already validated messages replaced by null, indices unchanged: the schema applies the
 * message schema to object items only, so a null item passes, and findings keep their pointers.
 */
function withoutKnown(doc: ReturnType<typeof tupleDocument>, msgs: readonly unknown[], same: boolean[]): unknown {
  const cp = doc.checkpoint;
  return {
    ...doc,
    checkpoint: { ...cp, channel_values: { ...cp.channel_values, messages: msgs.map((m, k) => (same[k] ? null : m)) } },
  };
}

/** Which messages had no schema finding. */
function cleanFlags(n: number, issues: readonly Issue[]): boolean[] {
  const clean: boolean[] = new Array(n).fill(true);
  for (const i of issues) {
    if (!i.pointer.startsWith(MESSAGES_PTR)) continue;
    const k = /^\/(\d+)/.exec(i.pointer.slice(MESSAGES_PTR.length));
    if (k) clean[Number(k[1])] = false;
    else clean.fill(false);
  }
  return clean;
}

const TOOL_CALL_WITHOUT_RESULT: ReadonlySet<string> = new Set(["lint/tool-call-without-result"]);

/**
 * Generic conversation lints (tool call without result, …) on the messages channel, at native pointers. A tool
 * call still waiting for its result is normal while the next step (the tool node) is scheduled: not reported then.
 * The lint view is the adapter's (`lintView`), with the lint forms of unchanged messages taken from `memo`.
 * Returns the lint forms of the messages.
 */
function lintConversation(
  run: Run,
  t: LgCheckpointTuple,
  doc: ReturnType<typeof tupleDocument>,
  msgs: readonly unknown[],
  same: boolean[] | undefined,
  memo: MessageMemo | undefined,
): ReturnType<typeof lintMessageOf>[] {
  const forms = msgs.map((m, k) => (same?.[k] ? memo!.lint[k]! : lintMessageOf(m)));
  if (forms.length === 0) return forms;
  // pending interrupts change the view (the HITL match): the adapter builds it then
  const view = pendingInterrupts(t.pendingWrites).length
    ? langgraphAdapter.lintView!(doc, { name: "" })
    : { threadId: t.threadId, messages: forms };
  const make = (severity: Issue["severity"], rule: string, pointer: string, message: string): Issue => ({
    severity,
    rule,
    pointer,
    message,
    file: "",
  });
  for (const i of canonicalLint(
    view,
    () => langgraphAdapter.messagePointers(doc),
    doc,
    make,
    midStep(t) ? TOOL_CALL_WITHOUT_RESULT : undefined,
  )) {
    run.add(i.severity, i.rule, t.row, i.pointer, i.message);
  }
  return forms;
}

/**
 * Parent ids that loop (a checkpoint its own parent, or A → B → A): the libraries' history and delta walks would
 * follow the loop for ever. One error per loop, at its smallest checkpoint id.
 */
function cycleRule(run: Run, byId: Map<string, Summary>): void {
  const done = new Set<string>();
  for (const start of byId.keys()) {
    const path: string[] = [];
    const onPath = new Set<string>();
    let id: string | null = start;
    while (id !== null && !done.has(id) && !onPath.has(id) && byId.has(id)) {
      path.push(id);
      onPath.add(id);
      id = byId.get(id)!.parentId;
    }
    if (id !== null && onPath.has(id)) {
      const loop = path.slice(path.indexOf(id));
      const first = [...loop].sort()[0]!;
      run.add(
        "error",
        "langgraph/parent-cycle",
        byId.get(first)!.row,
        "/parentId",
        loop.length === 1
          ? `checkpoint ${first} is its own parent: history and DeltaChannel walks never end`
          : `the parent ids loop (${loop.join(" → ")} → ${id}): history and DeltaChannel walks never end`,
      );
    }
    for (const x of path) done.add(x);
  }
}

/** Rules 2–6, 10 and 18 over one (thread, namespace): every parent is looked up among the group's checkpoints. */
function chainRules(run: Run, group: Summary[]): void {
  const byId = new Map(group.map((s) => [s.id, s]));
  cycleRule(run, byId);
  let oldest = group[0]!.id;
  for (const s of group) if (s.id < oldest) oldest = s.id;
  for (const s of group) {
    if (s.parentId === null) {
      if (!(s.step === -1 && s.source === "input"))
        run.add(
          "warning",
          "langgraph/root-not-input",
          s.row,
          "/parentId",
          `a checkpoint without a parent is normally the namespace's first input checkpoint (step −1, source input); this one has step ${s.step}, source ${JSON.stringify(s.source)}`,
        );
      continue;
    }
    const p = byId.get(s.parentId);
    // a parent older than every checkpoint left is history cut at the front (`ckpt prune`, the libraries'
    // delete of old checkpoints): a normal state the libraries read, not a finding
    if (!p && s.parentId < oldest) continue;
    if (!p) {
      run.add(
        "error",
        "langgraph/missing-parent",
        s.row,
        "/parentId",
        `parent checkpoint ${s.parentId} does not exist in this thread and namespace: history, time travel and the v<4 pending-sends migration break at this checkpoint`,
      );
      continue;
    }
    if (!(p.id < s.id))
      run.add(
        "warning",
        "langgraph/parent-order",
        s.row,
        "/parentId",
        `the parent id ${p.id} does not sort before this id: the libraries order history by id, so the parent would list as newer`,
      );
    if (s.step !== undefined && p.step !== undefined && !(s.step > p.step))
      run.add(
        "warning",
        "langgraph/step-order",
        s.row,
        "/metadata/step",
        `step ${s.step} does not increase on the parent's step ${p.step}`,
      );
    if (s.ts && p.ts && Date.parse(s.ts) < Date.parse(p.ts))
      run.add("warning", "langgraph/ts-order", s.row, "/checkpoint/ts", `ts ${s.ts} is before the parent's ${p.ts}`);
    for (const [c, v] of Object.entries(p.versions)) {
      const now = s.versions[c];
      if (now === undefined || typeof now !== typeof v) continue;
      if (compareVersions(now, v) < 0)
        run.add(
          "error",
          "langgraph/version-decreased",
          s.row,
          `/checkpoint/channel_versions/${esc(c)}`,
          `channel ${c} went back from version ${JSON.stringify(v)} (parent) to ${JSON.stringify(now)}: nodes that saw the newer version will not run on its updates`,
        );
    }
  }
  for (const s of group) idStepRule(run, s);
  if (group[0]!.row.store === "postgres") sharedVersionRule(run, group, byId);
}

/**
 * PostgreSQL keeps one `checkpoint_blobs` row per (thread, namespace, channel, version), written with ON CONFLICT DO
 * NOTHING. When two checkpoints that are not on one line (branches of a fork) each bring in a new value under the same
 * (channel, version), only the first one written is stored, and the other branch's checkpoints read it. LangGraph JS's
 * PostgresSaver does this on every forked thread: its versions are plain integers, so a branch started from an older
 * checkpoint counts on into numbers the main line already used (set C's js-c.pg.sql c-delta-2, js-a.pg.sql a-forked-1);
 * Python's versions carry a random tail and do not meet. A checkpoint "brings in" a version when its parent's version
 * of the channel differs (a root checkpoint brings in all of its versions). Reported once per later checkpoint, at the
 * checkpoint that reads the other branch's values (the later id: the earlier one's blob was kept). The `branch:to:*`
 * trigger channels are left out: their value is the same null trigger on every branch (LangGraph JS 1.x writes
 * `null` or `empty`), so sharing a blob loses nothing; `ckpt migrate` renumbers only versions whose values differ.
 */
function sharedVersionRule(run: Run, group: Summary[], byId: Map<string, Summary>): void {
  const first = new Map<string, Summary>();
  for (const s of [...group].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const p = s.parentId !== null ? byId.get(s.parentId) : undefined;
    if (s.parentId !== null && !p) continue; // a pruned parent: what it held is unknown
    const shared: Array<[string, LgVersion, Summary]> = [];
    for (const [ch, v] of Object.entries(s.versions)) {
      if (p && p.versions[ch] === v) continue;
      if (ch.startsWith("branch:to:")) continue; // trigger channels: the value is the null trigger on every branch
      const key = `${ch}\u0000${typeof v}\u0000${String(v)}`;
      const other = first.get(key);
      if (!other) first.set(key, s);
      else shared.push([ch, v, other]);
    }
    if (shared.length === 0) continue;
    // the conversation first: it is what a reader sees go wrong
    shared.sort((a, b) => Number(b[0] === "messages") - Number(a[0] === "messages") || (a[0] < b[0] ? -1 : 1));
    const [ch, v, other] = shared[0]!;
    const list = shared.map(([c, ver]) => `${c} ${JSON.stringify(ver)}`).join(", ");
    run.add(
      "warning",
      "langgraph/shared-blob-version",
      s.row,
      `/checkpoint/channel_versions/${esc(ch)}`,
      `this checkpoint brings in ${shared.length === 1 ? "a channel version" : "channel versions"} another branch of the thread brought in first (${list}; e.g. ${ch} ${JSON.stringify(v)} by checkpoint ${other.id}): PostgreSQL keeps one blob per (channel, version), the first written, so this checkpoint reads the other branch's values for ${shared.length === 1 ? "it" : "them"}, not its own (unless both branches wrote the same). LangGraph JS's PostgresSaver reuses integer versions on forked threads; \`ckpt migrate\` gives each branch versions of its own`,
    );
  }
}

/** Rule 5: the id's clock sequence is the step (Python and JS layouts). */
function idStepRule(run: Run, s: Summary): void {
  const m = /^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}-([0-9a-f]{4})-[0-9a-f]{12}$/i.exec(s.id);
  if (m && s.step !== undefined && Number.isInteger(s.step)) {
    const seq = parseInt(m[1]!, 16);
    const py = 0x8000 | (s.step & 0x3fff);
    const js = ((((s.step >>> 8) | 0x80) & 0xff) << 8) | (s.step & 0xff);
    if (seq !== py && seq !== js && seq !== 0xbffe)
      run.add(
        "warning",
        "langgraph/id-step-mismatch",
        s.row,
        "/checkpoint/id",
        py === js
          ? `the id's clock sequence ${m[1]} is not the ${py.toString(16)} both libraries write for step ${s.step}: the row was not written by either library's loop as is`
          : `the id's clock sequence ${m[1]} matches neither Python (${py.toString(16)}) nor JS (${js.toString(16)}) for step ${s.step}: the row was not written by either library's loop as is`,
      );
  }
}

/** Rule 18 needs the ids of every namespace of the thread: checked per checkpoint as the metadata is read. */
function parentsRule(
  run: Run,
  t: LgCheckpointTuple,
  threadIds: Map<string, Set<string>>,
  oldest: Map<string, string>,
): void {
  if (!isRecord(t.metadata.parents)) return;
  for (const [ns, id] of Object.entries(t.metadata.parents)) {
    if (typeof id !== "string" || ns === t.namespace) continue;
    const ids = threadIds.get(ns);
    // an id older than every checkpoint left in that namespace was pruned with the front of its history
    if (ids && !ids.has(id) && id > (oldest.get(ns) ?? id))
      run.add(
        "warning",
        "langgraph/missing-parents-entry",
        t.row,
        `/metadata/parents/${esc(ns)}`,
        `metadata.parents names checkpoint ${id} of namespace '${ns}', which does not exist`,
      );
  }
}

/** Store-level rules: orphan writes (8, a warning: rule 16), orphan blobs (15), the Postgres schema (20). */
async function storeRules(run: Run, reader: LgReader): Promise<void> {
  const thread = run.opts.threadId;
  for await (const w of reader.orphanWrites()) {
    if (run.full) break;
    if (thread !== undefined && w.threadId !== thread) continue;
    // LangGraph reads a store with orphan writes as if they were not there (it selects writes by checkpoint id): a
    // leftover of a checkpoint deleted by hand or by a prune that kept its writes, not a store the loader rejects
    run.add(
      "warning",
      "langgraph/orphan-write",
      w,
      "",
      `a pending write of checkpoint ${w.checkpointId}, which does not exist: no library will ever read it (the libraries load the store without it; \`ckpt prune\` removes such writes)`,
    );
  }
  for await (const b of reader.orphanBlobs()) {
    if (thread !== undefined && b.threadId !== thread) continue;
    run.add(
      "warning",
      "langgraph/orphan-blob",
      b,
      "",
      `no checkpoint references this blob (channel ${b.channel}, version ${b.version}): safe to delete`,
    );
  }
  const info = reader.info;
  if (info.store === "postgres" && info.migration !== undefined) {
    const row: LgRowRef = { store: "postgres", table: "checkpoint_migrations", threadId: "", namespace: "" };
    if (info.migration !== 4 && info.migration !== 9)
      run.add(
        "warning",
        "langgraph/migrations",
        row,
        "",
        `checkpoint_migrations is at v${info.migration}; LangGraph JS leaves 4, Python 9`,
      );
    if (info.migration >= 9 !== Boolean(info.taskPath))
      run.add(
        "warning",
        "langgraph/migrations",
        row,
        "",
        `checkpoint_writes ${info.taskPath ? "has" : "lacks"} task_path at migration v${info.migration} (Python migration 9 adds it)`,
      );
  }
}

/** Validate a LangGraph store, or one thread / checkpoint of it. */
export async function validateLangGraphStore(
  reader: LgReader,
  opts: LgValidateOptions = {},
): Promise<LgValidateResult> {
  const run = new Run(reader.uri, opts);
  outer: for await (const batch of reader.scan({
    ...(opts.threadId !== undefined ? { threadId: opts.threadId } : {}),
  })) {
    for (const t of batch) {
      // encrypted rows without a usable key: the reader cannot judge the store (exit 3 naming the key option), it is
      // not the store's fault (no finding per row: each would say the same)
      const noKey = missingKeyReport(t);
      if (noKey) throw inputError("langgraph-no-aes-key", noKey, { file: reader.uri });
      run.tuple(t);
      if (run.full) break outer;
    }
  }
  run.finish();
  if (!run.full) await storeRules(run, reader);
  reportHazards(run);
  return {
    checkpoints: run.checkpoints,
    writes: run.writes,
    issues: run.issues,
    ...(run.full ? { stoppedEarly: true } : {}),
  };
}

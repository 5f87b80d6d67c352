/**
 * Generic lint rules: run on the canonical checkpoint (mapped back to native pointers through the adapter's
 * `messagePointers`) and on the native value (integers beyond 2^53, prototype keys). Severity "warning": the
 * system's loader accepts the document but gets it wrong — except integers beyond the u64 range in the
 * Rust-family formats, which serde rejects (error).
 */
import type { Checkpoint } from "../generated/types.js";
import type { Issue, LintView } from "./types.js";
import { containsBigInt, hasLongDigitRun, pathToPointer, pointerToPath } from "../base/json.js";

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);

/** Builds an issue at a native pointer (the caller adds file and position). */
export type MakeIssue = (severity: Issue["severity"], rule: string, pointer: string, message: string) => Issue;

/** Resolve an RFC 6901 pointer in a value; undefined when it does not exist. */
export function resolvePointer(value: unknown, pointer: string): unknown {
  let cur: unknown = value;
  for (const seg of pointerToPath(pointer)) {
    if (Array.isArray(cur) && /^\d+$/.test(seg)) cur = cur[Number(seg)];
    else if (isObj(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}

/**
 * Lints of the canonical conversation: tool calls without results and the reverse, non-monotonic timestamps,
 * duplicate tool-call ids, usage totals that do not add up. `cp` is the canonical checkpoint or an adapter's
 * `lintView` of it (the same fields).
 * `pointers[i]` is the native pointer of `cp.messages[i]` (or a function giving them, called only for a
 * finding); `native` lets content pointers be refined. Rules in `skip` are not checked (no finding is built).
 */
export function canonicalLint(
  cp: Checkpoint | LintView,
  pointers: readonly string[] | (() => readonly string[]),
  native: unknown,
  make: MakeIssue,
  skip?: ReadonlySet<string>,
): Issue[] {
  const out: Issue[] = [];
  const msgs = cp.messages as unknown as Obj[];
  let ptrs = typeof pointers === "function" ? undefined : pointers;
  const at = (i: number) => (ptrs ??= (pointers as () => readonly string[])())[i] ?? "";
  /** the native pointer of content block j of message i when the native message has it, else the message */
  const blockAt = (i: number, j: number, id: unknown) => {
    const p = `${at(i)}/content/${j}`;
    const b = resolvePointer(native, p);
    return isObj(b) && (b.id === id || b.toolCallId === id || b.tool_call_id === id) ? p : at(i);
  };
  /** tool call id → k: the call is content block callJ[k] of message callI[k] (numbers: no object per call) */
  const calls = new Map<string, number>();
  const callI: number[] = [];
  const callJ: number[] = [];
  /** results: callDone[k] for a call seen before its result, `early` for results with no earlier call */
  const callDone: boolean[] = [];
  const early = new Set<string>();
  let lastTs: number | undefined;
  let lastTsAt = -1;
  let lastAssistant = -1;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (typeof m !== "object" || m === null) continue;
    const role = m.role; // each property read once: messages come in many shapes (megamorphic loads)
    if (role === "assistant") lastAssistant = i;
    if (Array.isArray(m)) continue;
    const ts = m.timestamp;
    if (typeof ts === "number") {
      if (lastTs !== undefined && ts < lastTs) {
        out.push(
          make(
            "warning",
            "lint/non-monotonic-timestamp",
            `${at(i)}`,
            `timestamp ${ts} is earlier than the previous message's ${lastTs} (message ${lastTsAt}): loaders keep the order, but time-based tools misorder the history`,
          ),
        );
      }
      lastTs = ts;
      lastTsAt = i;
    }
    if (role === "assistant") {
      const content = m.content;
      if (Array.isArray(content)) {
        for (let j = 0; j < content.length; j++) {
          const c: unknown = content[j];
          if (!isObj(c) || c.type !== "toolCall" || typeof c.id !== "string") continue;
          const first = calls.get(c.id);
          if (first !== undefined) {
            out.push(
              make(
                "warning",
                "lint/duplicate-id",
                blockAt(i, j, c.id),
                `tool call id '${c.id}' is already used by message ${callI[first]}: results cannot be matched to their call`,
              ),
            );
          } else {
            calls.set(c.id, callI.length);
            callI.push(i);
            callJ.push(j);
            callDone.push(false);
          }
        }
      }
      const usage = m.usage;
      if (isObj(usage)) usageLint(usage, at, i, make, out);
    } else if (role === "toolResult") {
      const id = m.toolCallId;
      if (typeof id === "string") {
        const k = calls.get(id);
        if (k === undefined) {
          out.push(
            make(
              "warning",
              "lint/tool-result-without-call",
              at(i),
              `tool result for '${id}' has no earlier tool call with that id: providers reject the history when it is sent back`,
            ),
          );
          early.add(id);
        } else callDone[k] = true;
      }
    }
  }
  for (const [id, k] of calls) {
    if (callDone[k] || early.has(id) || skip?.has("lint/tool-call-without-result")) continue;
    const i = callI[k]!;
    const j = callJ[k]!;
    // a checkpoint paused at an interrupt legitimately ends with calls awaiting results
    if (cp.interrupt && i === lastAssistant) continue;
    out.push(
      make(
        "warning",
        "lint/tool-call-without-result",
        blockAt(i, j, id),
        `tool call '${id}' has no tool result: providers reject the history when it is sent back (resume inserts nothing)`,
      ),
    );
  }
  return out;
}

const num = (x: unknown) => (typeof x === "number" ? x : 0);

/** `at(i)`: the message's pointer, built only for a finding */
function usageLint(u: Obj, at: (i: number) => string, i: number, make: MakeIssue, out: Issue[]): void {
  const total = num(u.totalTokens);
  if (total === 0) return; // Anthropic never sets it
  const io = num(u.input) + num(u.output);
  const all = io + num(u.cacheRead) + num(u.cacheWrite);
  const r = num(u.reasoning);
  if (total === io || total === all || total === io + r || total === all + r) return;
  out.push(
    make(
      "warning",
      "lint/usage-total-mismatch",
      `${at(i)}/usage`,
      `usage total ${total} is neither input+output (${io}) nor input+output+cacheRead+cacheWrite (${all}): cost and budget accounting will be off`,
    ),
  );
}

const U64_MAX = 18446744073709551615n;
const I64_MIN = -9223372036854775808n;
/** Formats whose loaders are serde (integers are u64/i64 at most). */
const SERDE_FORMATS = new Set(["yoagent", "yoagent-session", "phi-core", "phi-core-session"]);

/**
 * Native-value lints: integers beyond ±(2^53−1) (parsed as bigint by ckpt; JSON.parse would round them) and
 * `__proto__` / `constructor` keys (prototype pollution in naive JavaScript loaders).
 */
export function nativeLint(native: unknown, format: string, make: MakeIssue): Issue[] {
  const out: Issue[] = [];
  const path: Array<string | number> = [];
  const walk = (v: unknown) => {
    if (typeof v === "bigint") {
      const p = pathToPointer(path);
      if (SERDE_FORMATS.has(format) && (v > U64_MAX || v < I64_MIN)) {
        out.push(
          make("error", "lint/integer-out-of-range", p, `integer ${v} is outside the 64-bit range: serde rejects it`),
        );
      } else {
        out.push(
          make(
            "warning",
            "lint/unsafe-integer",
            p,
            `integer ${v} is beyond 2^53: JavaScript (JSON.parse) would round it; ckpt keeps it exact`,
          ),
        );
      }
      return;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i]);
        path.pop();
      }
    } else if (isObj(v)) {
      for (const k of Object.keys(v)) {
        path.push(k);
        if (k === "__proto__" || k === "constructor") {
          out.push(
            make(
              "warning",
              "lint/prototype-key",
              pathToPointer(path),
              `key '${k}' can pollute object prototypes in JavaScript loaders that copy objects naively`,
            ),
          );
        }
        walk(v[k]);
        path.pop();
      }
    }
  };
  walk(native);
  return out;
}

/** Whether a value parsed from `text` (when given) holds a bigint: a text without a run of 16+ digits cannot, and is not walked. */
export function mayHoldBigInt(native: unknown, text: string | undefined): boolean {
  return (text === undefined || hasLongDigitRun(text)) && containsBigInt(native);
}

/** A prototype key spelled out (one regex: irregexp skips ahead on it, faster than two `includes`). */
const PROTO_KEY = /"(?:__proto__|constructor)"/;

/**
 * Whether `nativeLint` can find anything: the value holds a bigint, or the text (when given) may have a
 * `__proto__` / `constructor` key — spelled out, or with a `\u00XX` escape in it (`"\u005f_proto__"` is the same key).
 */
export function mayNeedNativeLint(native: unknown, text: string | undefined): { bigint: boolean; any: boolean } {
  const bigint = mayHoldBigInt(native, text);
  return { bigint, any: bigint || text === undefined || PROTO_KEY.test(text) || text.includes("\\u00") };
}

/** deep-agent FileSaver's file stem for a thread id. */
export const fileSaverStem = (threadId: string) => threadId.replace(/[^a-zA-Z0-9_-]/g, "_");

/**
 * FileSaver collisions among deep-agent files validated together: two thread ids that sanitize to the same
 * stem overwrite each other's file; a file whose stem is not sanitize(threadId) is never found by `load()`.
 */
export function fileSaverLint(
  docs: ReadonlyArray<{ file: string; threadId: string; pointer: string }>,
  make: (file: string, pointer: string, message: string) => Issue,
): Issue[] {
  const out: Issue[] = [];
  const byStem = new Map<string, { file: string; threadId: string }>();
  for (const d of docs) {
    const stem = fileSaverStem(d.threadId);
    const base = d.file.replace(/^.*[\\/]/, "").replace(/\.json$/, "");
    if (!d.file.startsWith("<") && base !== stem) {
      out.push(
        make(
          d.file,
          d.pointer,
          `thread id '${d.threadId}' is stored by FileSaver as '${stem}.json', not '${base}.json': load('${d.threadId}') does not find this file`,
        ),
      );
    }
    // only files of one folder share FileSaver's name space
    const key = `${d.file.replace(/[^\\/]*$/, "")}\0${stem}`;
    const other = byStem.get(key);
    if (other && other.threadId !== d.threadId) {
      out.push(
        make(
          d.file,
          d.pointer,
          `thread id '${d.threadId}' and '${other.threadId}' (${other.file}) both sanitize to '${stem}.json': FileSaver overwrites one with the other`,
        ),
      );
    } else if (!other) byStem.set(key, d);
  }
  return out;
}

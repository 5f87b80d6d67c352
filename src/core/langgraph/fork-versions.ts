/**
 * Forked threads into PostgreSQL. The PostgreSQL layout keys channel values by (thread, namespace, channel, version)
 * (LANGGRAPH.md §1.3). JS versions are plain integers (and Python versions converted for JS, or JS versions converted
 * for Python, lose the random tail that keeps Python's apart): when a thread forks — `updateState` or an `invoke` from
 * an older checkpoint — each branch counts on from the fork point, and the second branch reaches versions the first
 * already has, with other values. LangGraph JS's own PostgresSaver then keeps the first branch's blob (ON CONFLICT DO
 * NOTHING) and the second branch reads the first branch's values (verified on fixtures/langgraph/js-a.pg.sql,
 * thread a-forked-1).
 *
 * A migration renumbers instead: walking a thread's checkpoints in id order (parents first), a (channel, version)
 * whose value differs from the one the same key already holds gets a version of its own, and every descendant of that
 * checkpoint uses it in `channel_versions` and `versions_seen`. Order within a branch is kept, so the library still
 * sees which channels changed: JS integers move up by 1,000,000,000 per renumbering (a branch continues from there
 * without meeting the other branch's next versions); Python strings keep their integer part and get a tail of their
 * own (Python compares the padded strings; branches never share an integer part with different tails). Pure.
 */
import { encode as mpEncode } from "@msgpack/msgpack";
import { buildMap, decodePlain, mapEntries } from "../../formats/langgraph/msgpack.js";
import { textOf, type LgCheckpoint } from "../../formats/langgraph/rows.js";

type Obj = Record<string, unknown>;
const JS_STEP = 1_000_000_000;

/** A channel's value as compared between branches: its msgpack bytes, or its JSON text. */
type Form = Uint8Array | string;
const sameForm = (a: Form, b: Form) =>
  a === b || (typeof a !== "string" && typeof b !== "string" && Buffer.compare(a, b) === 0);

interface Parsed {
  versions: Record<string, string | number>;
  /** versions_seen (decoded when a checkpoint is rewritten) */
  seen(): Record<string, Record<string, string | number>>;
  /** a channel's value, comparable (undefined when the checkpoint has none) */
  value(ch: string): Form | undefined;
  rebuild(versions: Obj, seen: Obj): Uint8Array;
}

function parse(cp: LgCheckpoint): Parsed | undefined {
  if (cp.type === "msgpack") {
    const entries = mapEntries(cp.checkpoint);
    const get = (k: string) => entries.find((e) => e[0] === k)?.[1];
    const cv = get("channel_values");
    let values: Map<string, Uint8Array> | undefined;
    const versions = (get("channel_versions") ? decodePlain(get("channel_versions")!) : {}) as Parsed["versions"];
    return {
      versions,
      seen: () => (get("versions_seen") ? decodePlain(get("versions_seen")!) : {}) as ReturnType<Parsed["seen"]>,
      value: (ch) => (values ??= new Map(cv ? mapEntries(cv) : [])).get(ch),
      rebuild: (v, s) =>
        buildMap(
          entries.map(([k, raw]) => [
            k,
            k === "channel_versions" ? mpEncode(v) : k === "versions_seen" ? mpEncode(s) : raw,
          ]),
        ),
    };
  }
  let o: Obj;
  try {
    o = JSON.parse(textOf(cp.checkpoint)) as Obj;
  } catch {
    return undefined;
  }
  const values = (o.channel_values ?? {}) as Obj;
  return {
    versions: (o.channel_versions ?? {}) as Parsed["versions"],
    seen: () => (o.versions_seen ?? {}) as ReturnType<Parsed["seen"]>,
    value: (ch) => (Object.hasOwn(values, ch) ? JSON.stringify(values[ch]) : undefined),
    rebuild: (v, s) => Buffer.from(JSON.stringify({ ...o, channel_versions: v, versions_seen: s })),
  };
}

/** A branch's renumbering: per channel the shift its new versions get, and the versions already moved. */
interface Branch {
  /** channel → JS: the amount added (a multiple of 1e9); Python: the tail tag (1, 2, …) */
  shift: Map<string, number>;
  /** channel \0 original version → the version written */
  moved: Map<string, string | number>;
}

const shifted = (v: string | number, k: number): string | number =>
  k === 0 ? v : typeof v === "number" ? v + k : `${v.split(".")[0]}.0.${String(k).padStart(14, "0")}`;

/**
 * A renumberer for one migration: feed it every checkpoint in (thread, namespace, id) order; it returns the
 * checkpoint, rewritten when its branch needs versions of its own. A channel whose version is its parent's (not
 * written by this step) keeps what the parent has — the library writes no blob for it either; a version this step
 * introduces that another branch already holds with another value moves, and so does every later version of that
 * channel in the branch (so versions keep increasing along it).
 */
export function createForkRenumberer() {
  let scope = "";
  /** (channel \0 version) → the value stored under it in this thread and namespace */
  let valueAt = new Map<string, Form>();
  /** checkpoint id → its branch state and its original channel versions */
  let seenCp = new Map<string, { branch: Branch; versions: Record<string, string | number> }>();
  const state = { renumbered: 0 };

  const free = (ch: string, v: string | number, form: Form, start: number): number => {
    for (let k = start; ; k++) {
      const shift = typeof v === "number" ? k * JS_STEP : k;
      const had = valueAt.get(`${ch}\u0000${shifted(v, shift)}`);
      if (had === undefined || sameForm(had, form)) return shift;
    }
  };

  function apply(cp: LgCheckpoint): LgCheckpoint {
    const sc = `${cp.threadId}\u0000${cp.ns}`;
    if (sc !== scope) [scope, valueAt, seenCp] = [sc, new Map(), new Map()];
    const p = parse(cp);
    if (!p) return cp;
    const parent = cp.parentId ? seenCp.get(cp.parentId) : undefined;
    const branch: Branch = { shift: new Map(parent?.branch.shift ?? []), moved: new Map(parent?.branch.moved ?? []) };
    seenCp.set(cp.id, { branch, versions: p.versions });
    for (const [ch, v] of Object.entries(p.versions)) {
      const key = `${ch}\u0000${v}`;
      if (branch.moved.has(key)) continue; // moved by an ancestor of this branch
      if (parent && parent.versions[ch] === v) continue; // not written by this step: the parent's value
      const form = p.value(ch) ?? "\u0000empty";
      let k = branch.shift.get(ch) ?? 0;
      const had = valueAt.get(`${ch}\u0000${shifted(v, k)}`);
      if (had !== undefined && !sameForm(had, form)) {
        k = free(ch, v, form, typeof v === "number" ? k / JS_STEP + 1 : k + 1);
        branch.shift.set(ch, k);
      }
      const nv = shifted(v, k);
      if (nv !== v) branch.moved.set(key, nv);
      if (!valueAt.has(`${ch}\u0000${nv}`)) valueAt.set(`${ch}\u0000${nv}`, form);
    }
    if (branch.moved.size === 0) return cp;
    const to = (ch: string, v: string | number) => branch.moved.get(`${ch}\u0000${v}`) ?? v;
    const versions: Obj = {};
    for (const [ch, v] of Object.entries(p.versions)) versions[ch] = to(ch, v);
    const seen: Obj = {};
    for (const [node, m] of Object.entries(p.seen())) {
      const out: Obj = {};
      for (const [ch, v] of Object.entries(m ?? {})) out[ch] = to(ch, v);
      seen[node] = out;
    }
    const checkpoint = p.rebuild(versions, seen);
    if (Buffer.compare(Buffer.from(checkpoint), Buffer.from(cp.checkpoint)) === 0) return cp;
    state.renumbered++;
    return { ...cp, checkpoint };
  }
  return Object.assign(apply, { state });
}

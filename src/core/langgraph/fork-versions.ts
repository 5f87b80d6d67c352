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
 * own (Python compares the padded strings; branches never share an integer part with different tails).
 *
 * Not a fork: a checkpoint whose channel holds another value than the one stored under the same version before it,
 * with no write in between. The library bumps a version on every write, so that is an app that changed the value in
 * place (a node mutating a list or dict of the state without writing it: LangGraph JS hands nodes the channel's own
 * objects). The SQLite savers serialize each checkpoint whole and keep the change; the PostgreSQL layout stores one
 * value per (channel, version) and cannot hold both. Such a checkpoint is refused, named for what happened, never
 * carried: renumbering would make the library see a write that never was (nodes run again on resume), and keeping
 * either value makes some checkpoint read a value it never held — LangGraph's own PostgresSaver keeps one or the other
 * depending on when it serializes (verified with LangGraph JS 1.7: the default async durability stored the changed
 * value at every checkpoint of that version, `durability: "sync"` the first, and the run then lost the change). Pure.
 */
import { encode as mpEncode } from "@msgpack/msgpack";
import { buildMap, decodePlain, mapEntries } from "../../formats/langgraph/msgpack.js";
import { decodeJson } from "../../formats/langgraph/serde.js";
import { inputError } from "../../base/errors.js";
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
  /** (channel \0 version) → the checkpoint that stored it */
  let storedBy = new Map<string, string>();
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
    if (sc !== scope) [scope, valueAt, seenCp, storedBy] = [sc, new Map(), new Map(), new Map()];
    const p = parse(cp);
    if (!p) return cp;
    const parent = cp.parentId ? seenCp.get(cp.parentId) : undefined;
    const branch: Branch = { shift: new Map(parent?.branch.shift ?? []), moved: new Map(parent?.branch.moved ?? []) };
    seenCp.set(cp.id, { branch, versions: p.versions });
    const inPlace: Array<[string, string | number, string]> = [];
    for (const [ch, v] of Object.entries(p.versions)) {
      const key = `${ch}\u0000${v}`;
      if (parent && parent.versions[ch] === v) {
        // not written by this step: the parent's value, unless the app changed it in place
        const at = `${ch}\u0000${branch.moved.get(key) ?? v}`;
        const held = valueAt.get(at);
        const form = p.value(ch);
        if (
          held !== undefined &&
          held !== EMPTY &&
          form !== undefined &&
          !sameForm(held, form) &&
          !sameDecoded(held, form)
        )
          inPlace.push([ch, v, storedBy.get(at)!]);
        continue;
      }
      if (branch.moved.has(key)) continue; // moved by an ancestor of this branch
      const form = p.value(ch) ?? EMPTY;
      let k = branch.shift.get(ch) ?? 0;
      const had = valueAt.get(`${ch}\u0000${shifted(v, k)}`);
      if (had !== undefined && !sameForm(had, form)) {
        k = free(ch, v, form, typeof v === "number" ? k / JS_STEP + 1 : k + 1);
        branch.shift.set(ch, k);
      }
      const nv = shifted(v, k);
      if (nv !== v) branch.moved.set(key, nv);
      if (!valueAt.has(`${ch}\u0000${nv}`)) {
        valueAt.set(`${ch}\u0000${nv}`, form);
        storedBy.set(`${ch}\u0000${nv}`, cp.id);
      }
    }
    if (inPlace.length) changedInPlace(inPlace);
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

  /** A checkpoint whose channels changed in place (see the module comment): refused, saying so. */
  function changedInPlace(changed: Array<[string, string | number, string]>): never {
    const [ch, v, by] = changed[0]!;
    const more =
      changed.length > 1
        ? ` (and ${changed
            .slice(1)
            .map(([c]) => `'${c}'`)
            .join(", ")})`
        : "";
    throw inputError(
      "langgraph-in-place",
      `its '${ch}' value${more} differs from the one checkpoint ${by} stored under the same version ${JSON.stringify(v)}, and no write changed it since: the app changed the value in place (a list or dict a node mutated without writing it). A SQLite store keeps that in every checkpoint; PostgreSQL stores one value per channel version and cannot hold both (a SQLite target can)`,
    );
  }
  return Object.assign(apply, { state });
}

const EMPTY = "\u0000empty";

/**
 * Whether two stored forms hold one value in other bytes (JS writes an undefined property as `{lc:2, type:"undefined"}`
 * in one checkpoint and leaves it out in the next; a dict's key order): decoded and compared, key order ignored.
 */
function sameDecoded(a: Form, b: Form): boolean {
  if (typeof a !== typeof b) return false;
  try {
    return typeof a === "string"
      ? sameValue(decodeJson(a), decodeJson(b as string))
      : sameValue(decodePlain(a), decodePlain(b as Uint8Array));
  } catch {
    return false;
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x);
  if (kx.length !== Object.keys(y).length) return false;
  return kx.every((k) => Object.hasOwn(y, k) && sameValue(x[k], y[k]));
}

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
import { buildMap, decodePlain, mapEntries } from "../formats/langgraph/msgpack.js";
import { textOf, type LgCheckpoint } from "../formats/langgraph/rows.js";

type Obj = Record<string, unknown>;
const JS_STEP = 1_000_000_000;

interface Parsed {
  versions: Record<string, string | number>;
  seen: Record<string, Record<string, string | number>>;
  /** each channel's value, as comparable text (absent channels: no entry) */
  values: Map<string, string>;
  rebuild(versions: Obj, seen: Obj): Uint8Array;
}

function parse(cp: LgCheckpoint): Parsed | undefined {
  if (cp.type === "msgpack") {
    const entries = mapEntries(cp.checkpoint);
    const get = (k: string) => entries.find((e) => e[0] === k)?.[1];
    const cv = get("channel_values");
    const values = new Map<string, string>();
    for (const [ch, raw] of cv ? mapEntries(cv) : []) values.set(ch, Buffer.from(raw).toString("hex"));
    const versions = (get("channel_versions") ? decodePlain(get("channel_versions")!) : {}) as Parsed["versions"];
    const seen = (get("versions_seen") ? decodePlain(get("versions_seen")!) : {}) as Parsed["seen"];
    return {
      versions,
      seen,
      values,
      rebuild: (v, s) => buildMap(entries.map(([k, raw]) => [k, k === "channel_versions" ? mpEncode(v) : k === "versions_seen" ? mpEncode(s) : raw])),
    };
  }
  let o: Obj;
  try {
    o = JSON.parse(textOf(cp.checkpoint)) as Obj;
  } catch {
    return undefined;
  }
  const values = new Map<string, string>();
  for (const [ch, v] of Object.entries((o.channel_values ?? {}) as Obj)) values.set(ch, JSON.stringify(v));
  return {
    versions: (o.channel_versions ?? {}) as Parsed["versions"],
    seen: (o.versions_seen ?? {}) as Parsed["seen"],
    values,
    rebuild: (v, s) => Buffer.from(JSON.stringify({ ...o, channel_versions: v, versions_seen: s })),
  };
}

/**
 * A renumberer for one migration: feed it every checkpoint in (thread, namespace, id) order; it returns the
 * checkpoint, rewritten when its branch needed versions of its own. `renumbered` counts the rewritten checkpoints.
 */
export function createForkRenumberer() {
  let scope = "";
  /** (channel \0 version) → the value text stored under it in this thread and namespace */
  let valueAt = new Map<string, string>();
  /** checkpoint id → its branch's renumberings (channel \0 old version → new version) */
  let maps = new Map<string, Map<string, string | number>>();
  const state = { renumbered: 0 };

  const fresh = (ch: string, v: string | number): string | number => {
    for (let k = 1; ; k++) {
      const nv = typeof v === "number" ? v + k * JS_STEP : `${v.split(".")[0]}.0.${String(k).padStart(14, "0")}`;
      if (!valueAt.has(`${ch}\u0000${nv}`)) return nv;
    }
  };

  function apply(cp: LgCheckpoint): LgCheckpoint {
    const sc = `${cp.threadId}\u0000${cp.ns}`;
    if (sc !== scope) [scope, valueAt, maps] = [sc, new Map(), new Map()];
    const p = parse(cp);
    if (!p) return cp;
    const inherited = (cp.parentId && maps.get(cp.parentId)) || undefined;
    const map = new Map(inherited ?? []);
    for (const [ch, v] of Object.entries(p.versions)) {
      const key = `${ch}\u0000${v}`;
      if (map.has(key)) continue;
      const form = p.values.get(ch) ?? "\u0000empty";
      const had = valueAt.get(key);
      if (had === undefined) valueAt.set(key, form);
      else if (had !== form) {
        const nv = fresh(ch, v);
        map.set(key, nv);
        valueAt.set(`${ch}\u0000${nv}`, form);
      }
    }
    if (map.size) maps.set(cp.id, map);
    if (map.size === 0) return cp;
    const to = (ch: string, v: string | number) => map.get(`${ch}\u0000${v}`) ?? v;
    const versions: Obj = {};
    for (const [ch, v] of Object.entries(p.versions)) versions[ch] = to(ch, v);
    const seen: Obj = {};
    for (const [node, m] of Object.entries(p.seen)) {
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

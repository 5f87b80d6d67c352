/**
 * `--redact` of a LangGraph history (`ckpt copy`, `ckpt migrate` between LangGraph stores): each row's payloads with
 * the findings in their strings replaced, one `Redactor` per thread (the same value gets the same placeholder in every
 * checkpoint, write and metadata of the thread). Payloads are rewritten where they are stored, never decoded and
 * re-encoded: a JSON payload (`json`, the JS serde; metadata) keeps every character outside the strings that change
 * (Redactor.jsonText), a msgpack payload (the Python serde) every byte outside them (msgpack-strings.ts). Payloads
 * with no text (`null`, `empty`, `bytes`) stay as they are. One that cannot be rewritten — encrypted (`…+aes`),
 * pickled, of a type ckpt does not know, or not decodable — is not written: the row carries `refused`, which the
 * migration turns into a rejection of the checkpoint (and of its descendants), so that no row goes out unredacted.
 */
import { msgpackStrings, replaceMsgpackStrings, type Unscanned } from "../../formats/langgraph/msgpack-strings.js";
import type { LgCheckpoint, LgWrite } from "../../formats/langgraph/rows.js";
import type { LgStore } from "../../savers/langgraph/shared.js";
import type { FindingKind, RedactCounts, Redactor } from "../scan/redact.js";

const td = new TextDecoder();
const te = new TextEncoder();

/**
 * A channel version of LangGraph Python (and of a JS saver that writes strings): `f"{counter:032}.{random():016}"`,
 * the saver's token, not content. Its random part is 15-17 digits, which the card rule takes for a card number about
 * once in a hundred versions; kept as it is.
 */
const isVersion = (s: string) => s.length > 33 && /^\d{32}\.\d+(?:\.\d+)?(?:e-\d+)?$/.test(s);

/** A payload that `--redact` cannot rewrite: the reason, said in the checkpoint's rejection. */
class Unrewritable extends Error {}

/** The payload with its findings replaced (the same array when nothing changed). */
async function payload(
  type: string | null,
  data: Uint8Array,
  r: Redactor,
  what: string,
  seen: Unscanned,
): Promise<Uint8Array> {
  const t = type ?? "json"; // legacy JS rows have no type: JSON
  if (t === "null" || t === "empty") return data;
  if (t === "bytes" || t === "bytearray") {
    if (data.length) seen.values++; // raw bytes: kept as stored, not read as text (counted, said in the summary)
    return data;
  }
  if (t === "json") {
    const text = td.decode(data);
    const out = await r.jsonText(text, isVersion);
    return out === text ? data : te.encode(out);
  }
  if (t === "msgpack") {
    let before: string[];
    try {
      before = msgpackStrings(data, seen);
    } catch (e) {
      throw new Unrewritable(`--redact: ${what} does not decode as msgpack (${(e as Error).message})`);
    }
    return replaceMsgpackStrings(data, before, await r.strings(before, isVersion));
  }
  if (t.includes("+")) throw new Unrewritable(`--redact: ${what} is encrypted (${t}), which ckpt does not rewrite`);
  throw new Unrewritable(`--redact: ${what} is a '${t}' payload, which ckpt cannot rewrite`);
}

/** Metadata: JSON text (SQLite, PostgreSQL's JSONB), else a msgpack payload under the checkpoint's tag. */
async function metadata(cp: LgCheckpoint, r: Redactor, seen: Unscanned): Promise<Uint8Array> {
  const first = cp.metadata.find((c) => c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09);
  const json = first === 0x7b || first === 0x5b || first === 0x22 || first === 0x6e; // { [ " n(ull)
  return payload(json ? "json" : cp.type, cp.metadata, r, "its metadata", seen);
}

/**
 * One checkpoint of a thread with its payloads redacted through the thread's redactor; the values kept as stored
 * without being read as text (binary values, strings that are not UTF-8) are counted in `seen`.
 */
export async function redactRow(cp: LgCheckpoint, r: Redactor, seen: Unscanned = { values: 0 }): Promise<LgCheckpoint> {
  try {
    const checkpoint = await payload(cp.type, cp.checkpoint, r, "its checkpoint", seen);
    const meta = await metadata(cp, r, seen);
    const writes: LgWrite[] = [];
    for (const w of cp.writes) {
      const value = await payload(w.type, w.value, r, `its pending write ${w.taskId}/${w.idx}`, seen);
      writes.push(value === w.value ? w : { ...w, value });
    }
    return { ...cp, checkpoint, metadata: meta, writes };
  } catch (e) {
    if (e instanceof Unrewritable) return { ...cp, refused: e.message };
    throw e;
  }
}

/**
 * A row source whose rows come out redacted (one redactor per thread, counts added into `counts`): what `copy` and
 * `migrate --redact` read a LangGraph history through. Rows of one thread arrive together (scanRows' key order).
 */
export function redactingRows<S extends Pick<LgStore, "scanRows">>(
  source: S,
  kinds: ReadonlySet<FindingKind>,
  counts: RedactCounts,
  seen: Unscanned = { values: 0 },
): S {
  let thread: string | undefined;
  let r: Redactor | undefined;
  const add = () => {
    for (const [k, n] of Object.entries(r?.counts ?? {}))
      counts[k as FindingKind] = (counts[k as FindingKind] ?? 0) + (n ?? 0);
  };
  const scanRows: LgStore["scanRows"] = async function* (batchSize, threads, only) {
    const { Redactor } = await import("../scan/redact.js");
    for await (const batch of source.scanRows(batchSize, threads, only)) {
      const out: LgCheckpoint[] = [];
      for (const cp of batch) {
        if (cp.threadId !== thread || !r) {
          add();
          [thread, r] = [cp.threadId, new Redactor(kinds)];
        }
        out.push(await redactRow(cp, r, seen));
      }
      yield out;
    }
    add();
    r = undefined;
  };
  return new Proxy(source, {
    get: (target, prop) => {
      if (prop === "scanRows") return scanRows;
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

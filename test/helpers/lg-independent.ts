/**
 * An independent reader of LangGraph SQLite stores for tests, written from LANGGRAPH.md §5.2 (msgpack + ext codes)
 * and §1.1 (tables), sharing no code with ckpt: a hand-written msgpack decoder (no library) whose ext values are
 * `{ext, payload}` objects, and a canonical form of every checkpoint, its metadata and its writes.
 */
import Database from "better-sqlite3";

export interface Ext {
  ext: number;
  payload: unknown;
}

export function unpack(b: Uint8Array): unknown {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let p = 0;
  const str = (n: number) => {
    const s = new TextDecoder().decode(b.subarray(p, p + n));
    p += n;
    return s;
  };
  const arr = (n: number): unknown[] => Array.from({ length: n }, () => read());
  const map = (n: number) => {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const k = read();
      o[String(k)] = read();
    }
    return o;
  };
  const ext = (n: number): Ext => {
    const type = dv.getInt8(p++);
    const data = b.subarray(p, p + n);
    p += n;
    return { ext: type, payload: unpack(data) };
  };
  function read(): unknown {
    const t = b[p++]!;
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0x80 && t <= 0x8f) return map(t & 0x0f);
    if (t >= 0x90 && t <= 0x9f) return arr(t & 0x0f);
    if (t >= 0xa0 && t <= 0xbf) return str(t & 0x1f);
    const u8 = () => b[p++]!;
    const u16 = () => ((p += 2), dv.getUint16(p - 2));
    const u32 = () => ((p += 4), dv.getUint32(p - 4));
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4: {
        const n = u8();
        p += n;
        return { bin: Buffer.from(b.subarray(p - n, p)).toString("hex") };
      }
      case 0xc5: {
        const n = u16();
        p += n;
        return { bin: Buffer.from(b.subarray(p - n, p)).toString("hex") };
      }
      case 0xc6: {
        const n = u32();
        p += n;
        return { bin: Buffer.from(b.subarray(p - n, p)).toString("hex") };
      }
      case 0xc7:
        return ext(u8());
      case 0xc8:
        return ext(u16());
      case 0xc9:
        return ext(u32());
      case 0xca:
        return ((p += 4), dv.getFloat32(p - 4));
      case 0xcb:
        return ((p += 8), dv.getFloat64(p - 8));
      case 0xcc:
        return u8();
      case 0xcd:
        return u16();
      case 0xce:
        return u32();
      case 0xcf:
        return ((p += 8), Number(dv.getBigUint64(p - 8)));
      case 0xd0:
        return ((p += 1), dv.getInt8(p - 1));
      case 0xd1:
        return ((p += 2), dv.getInt16(p - 2));
      case 0xd2:
        return ((p += 4), dv.getInt32(p - 4));
      case 0xd3:
        return ((p += 8), Number(dv.getBigInt64(p - 8)));
      case 0xd4:
        return ext(1);
      case 0xd5:
        return ext(2);
      case 0xd6:
        return ext(4);
      case 0xd7:
        return ext(8);
      case 0xd8:
        return ext(16);
      case 0xd9:
        return str(u8());
      case 0xda:
        return str(u16());
      case 0xdb:
        return str(u32());
      case 0xdc:
        return arr(u16());
      case 0xdd:
        return arr(u32());
      case 0xde:
        return map(u16());
      case 0xdf:
        return map(u32());
    }
    throw new Error(`bad msgpack byte 0x${t.toString(16)}`);
  }
  const v = read();
  if (p !== b.length) throw new Error(`trailing bytes after msgpack value (${b.length - p})`);
  return v;
}

/** Key-sorted JSON; JS's `{lc:2,type:"undefined"}` counts as an absent key (what JS revives it to). */
export function canon(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter(
      (k) =>
        !(
          o[k] &&
          typeof o[k] === "object" &&
          (o[k] as { lc?: unknown }).lc === 2 &&
          (o[k] as { type?: unknown }).type === "undefined"
        ),
    )
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canon(o[k])}`).join(",")}}`;
}

export function decodeTyped(type: string | null, b: Buffer | null): unknown {
  if (type === "msgpack") return unpack(b ?? Buffer.alloc(0));
  if (type === "null") return null;
  return JSON.parse((b ?? Buffer.from("null")).toString("utf8"));
}

export interface IndependentCheckpoint {
  parent: string | null;
  checkpoint: unknown;
  metadata: unknown;
  writes: unknown[];
  type: string | null;
}

/** Every checkpoint of a LangGraph SQLite store, decoded, keyed `thread|ns|id`. */
export function readSqliteStore(path: string): Map<string, IndependentCheckpoint> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const m = new Map<string, IndependentCheckpoint>();
    for (const r of db.prepare("SELECT * FROM checkpoints").all() as Array<Record<string, never>>) {
      m.set(`${r.thread_id}|${r.checkpoint_ns}|${r.checkpoint_id}`, {
        parent: r.parent_checkpoint_id,
        type: r.type,
        checkpoint: decodeTyped(r.type, r.checkpoint),
        metadata: JSON.parse((r.metadata as Buffer).toString("utf8")),
        writes: [],
      });
    }
    for (const r of db.prepare("SELECT * FROM writes ORDER BY task_id, idx").all() as Array<Record<string, never>>) {
      const c = m.get(`${r.thread_id}|${r.checkpoint_ns}|${r.checkpoint_id}`);
      if (!c) throw new Error(`orphan write ${r.thread_id}|${r.checkpoint_ns}|${r.checkpoint_id}`);
      c.writes.push([r.task_id, r.idx, r.channel, r.type, decodeTyped(r.type, r.value)]);
    }
    return m;
  } finally {
    db.close();
  }
}

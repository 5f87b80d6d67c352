/**
 * #26: the msgpack audit of `ckpt stats` — which Python classes a LangGraph store's msgpack values name, and which of
 * them strict mode (LANGGRAPH_STRICT_MSGPACK) refuses by default. Independent sources: the counts come from decoding
 * every stored value with @msgpack/msgpack's own decoder (an ExtensionCodec that records each ext's module and name),
 * not from ckpt's byte scanner; the verdicts from langgraph-checkpoint 4.2.0's `serde/_msgpack.py` (facts named
 * below); the `--allowlist` text is parsed by Python's own `ast.literal_eval`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Decoder, Encoder, ExtensionCodec } from "@msgpack/msgpack";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";
import type { LangGraphStatsReport } from "../src/generated/types.js";

const fx = join(import.meta.dirname, "..", "fixtures", "langgraph");
const AES_KEY = "lgsample-C-not-a-secret-key-0032"; // set C's public test key (generated.README.md)
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ckpt-audit-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An ext value as Python's serde writes one: code, then the payload array msgpack-encoded. */
class PyExt {
  constructor(
    readonly code: number,
    readonly payload: unknown[],
  ) {}
}
function encodePy(v: unknown): Uint8Array {
  const codec = new ExtensionCodec();
  for (let code = 0; code <= 7; code++)
    codec.register({
      type: code,
      encode: (x: unknown) =>
        x instanceof PyExt && x.code === code ? new Encoder({ extensionCodec: codec }).encode(x.payload) : null,
      decode: () => null,
    });
  return new Encoder({ extensionCodec: codec }).encode(v);
}

/** Every (ext, module, name) in a value, by @msgpack/msgpack's decoder (nested payloads included). */
function classesByDecoder(b: Uint8Array, into: Map<string, number>): void {
  const codec = new ExtensionCodec();
  const dec = new Decoder({ extensionCodec: codec });
  for (let code = 0; code <= 7; code++)
    codec.register({
      type: code,
      encode: () => null,
      decode: (data) => {
        const p = dec.decode(data) as unknown[];
        if (code <= 5 && Array.isArray(p) && typeof p[0] === "string" && typeof p[1] === "string") {
          const k = `${code} ${p[0]}.${p[1]}${code === 3 ? `.${p[3]}` : ""}`;
          into.set(k, (into.get(k) ?? 0) + 1);
        }
        if (code === 6) into.set("6 numpy.ndarray", (into.get("6 numpy.ndarray") ?? 0) + 1);
        return p;
      },
    });
  dec.decode(b);
}

const reportClasses = (r: LangGraphStatsReport) =>
  new Map(
    r.msgpackAudit.types.map((t) => [`${t.ext} ${t.module}.${t.name}${t.method ? `.${t.method}` : ""}`, t.count]),
  );

/** A copy of python-a.sqlite with one more pending write holding app classes of every gated kind. */
function storeWithAppClasses(): string {
  const file = join(dir, `app-${Math.random().toString(36).slice(2)}.sqlite`);
  copyFileSync(join(fx, "python-a.sqlite"), file);
  const db = new Database(file);
  const cp = db.prepare("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints LIMIT 1").get() as {
    thread_id: string;
    checkpoint_ns: string;
    checkpoint_id: string;
  };
  const value = encodePy({
    order: new PyExt(5, [
      "myapp.models",
      "Order",
      { id: 7, ref: new PyExt(0, ["uuid", "UUID", "0".repeat(32)]) },
      "model_validate_json",
    ]),
    plan: new PyExt(2, ["myapp.state", "Plan", { steps: [new PyExt(2, ["myapp.state", "Step", { n: 1 }])] }]),
    legacy: new PyExt(4, ["myapp.v1", "Legacy", { a: 1 }]),
    when: new PyExt(3, ["datetime", "date", "2026-11-28", "fromisoformat"]),
    at: new PyExt(3, ["datetime", "datetime", "2026-11-28T00:00:00", "fromisoformat"]),
    tags: new PyExt(1, ["builtins", "set", [["a", "b"]]]),
  });
  db.prepare(
    "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, ?, ?, 'audit-task', 0, 'extras', 'msgpack', ?)",
  ).run(cp.thread_id, cp.checkpoint_ns, cp.checkpoint_id, Buffer.from(value));
  db.close();
  return file;
}

/** Every msgpack value of a SQLite LangGraph store, decoded by @msgpack/msgpack. */
function sqliteClasses(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  const out = new Map<string, number>();
  for (const r of db
    .prepare("SELECT type, checkpoint AS v FROM checkpoints UNION ALL SELECT type, value FROM writes")
    .all() as Array<{
    type: string;
    v: Buffer;
  }>)
    if (r.type === "msgpack" && r.v) classesByDecoder(r.v, out);
  db.close();
  return out;
}

async function stats(uri: string, env: Record<string, string> = {}, extra: string[] = []) {
  const r = await runCli(["stats", uri, "--json", ...extra], { env });
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as LangGraphStatsReport;
}

describe("ckpt stats: the msgpack audit", () => {
  it("every Python class of a store, with the counts @msgpack/msgpack's decoder finds (set C and a store with app classes)", async () => {
    for (const file of [join(fx, "python-a.sqlite"), join(fx, "python-c.sqlite"), storeWithAppClasses()]) {
      const r = await stats(`sqlite:${file}`);
      expect(reportClasses(r)).toEqual(sqliteClasses(file));
      expect(r.msgpackAudit.unscannable).toBe(0);
      expect(r.msgpackAudit.encrypted).toBe(0);
    }
  });

  it("outside the default allowlist: app classes and method calls not in SAFE_MSGPACK_METHODS; on it: messages, uuid, set, datetime.fromisoformat", async () => {
    const r = await stats(`sqlite:${storeWithAppClasses()}`);
    const verdict = new Map(
      r.msgpackAudit.types.map((t) => [`${t.module}.${t.name}${t.method ? `.${t.method}` : ""}`, t.allowed]),
    );
    // langgraph-checkpoint 4.2.0 serde/_msgpack.py: SAFE_MSGPACK_TYPES holds ("uuid", "UUID"), ("builtins", "set"),
    // the langchain_core message classes, ("langgraph.types", "Interrupt"); SAFE_MSGPACK_METHODS only
    // ("datetime", "datetime", "fromisoformat")
    expect(Object.fromEntries(verdict)).toMatchObject({
      "myapp.models.Order": false,
      "myapp.state.Plan": false,
      "myapp.state.Step": false,
      "myapp.v1.Legacy": false,
      "datetime.date.fromisoformat": false,
      "datetime.datetime.fromisoformat": true,
      "uuid.UUID": true,
      "builtins.set": true,
      "langchain_core.messages.ai.AIMessage": true,
      "langgraph.types.Interrupt": true,
    });
    expect(r.msgpackAudit.outsideAllowlist).toBe(5);
    expect(r.msgpackAudit.types.slice(0, 5).every((t) => !t.allowed)).toBe(true); // outside first
  });

  it("--allowlist prints a Python value Python parses to exactly the app classes (the method call named as not coverable)", async () => {
    const file = storeWithAppClasses();
    const r = await runCli(["stats", `sqlite:${file}`, "--allowlist"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("datetime.date.fromisoformat() (a method call) is not covered");
    const parsed = execFileSync(
      "python3",
      ["-c", "import ast,json,sys; print(json.dumps(sorted(ast.literal_eval(sys.stdin.read()))))"],
      { input: r.out },
    ).toString();
    expect(JSON.parse(parsed)).toEqual([
      ["myapp.models", "Order"],
      ["myapp.state", "Plan"],
      ["myapp.state", "Step"],
      ["myapp.v1", "Legacy"],
    ]);
    const j = await runCli(["stats", `sqlite:${file}`, "--allowlist", "--json"]);
    expect(JSON.parse(j.out)).toEqual(JSON.parse(parsed));
    // a store whose classes are all on the default list
    const clean = await runCli(["stats", `sqlite:${join(fx, "python-c.sqlite")}`, "--allowlist"]);
    expect(clean.out.trim()).toBe("[]");
    // the text report says it
    const text = await runCli(["stats", `sqlite:${file}`]);
    expect(text.out).toMatch(/myapp\.models\.Order\s+pydantic v2\s+1\s+1\s+NO/);
    expect(text.out).toContain("5 classes outside it");
  });

  it("encrypted stores: without the key the audit says what it could not scan and how to give the key; with it, the classes", async () => {
    const file = join(fx, "python-c-aes.sqlite");
    const without = await stats(`sqlite:${file}`, { LANGGRAPH_AES_KEY: "" });
    expect(without.msgpackAudit.values).toBe(0);
    expect(without.msgpackAudit.encrypted).toBeGreaterThan(0);
    const text = await runCli(["stats", `sqlite:${file}`], { env: { LANGGRAPH_AES_KEY: "" } });
    expect(text.out).toContain("LANGGRAPH_AES_KEY");
    const list = await runCli(["stats", `sqlite:${file}`, "--allowlist"], { env: { LANGGRAPH_AES_KEY: "" } });
    expect(list.out).toContain("# incomplete:");
    expect(list.err).toContain("may be incomplete");

    const withKey = await stats(`sqlite:${file}`, { LANGGRAPH_AES_KEY: AES_KEY });
    expect(withKey.msgpackAudit.encrypted).toBe(0);
    const names = withKey.msgpackAudit.types.map((t) => `${t.module}.${t.name}`);
    expect(names).toContain("langchain_core.messages.ai.AIMessage");
    // the same conversation unencrypted (python-c.sqlite is written by the same generator) has the same classes
    const plain = await stats(`sqlite:${join(fx, "python-c.sqlite")}`);
    for (const n of names) expect(plain.msgpackAudit.types.map((t) => `${t.module}.${t.name}`)).toContain(n);
  });

  it("a JS store holds no msgpack: the audit is empty, and --allowlist on ckpt's own store is a usage error", async () => {
    const r = await stats(`sqlite:${join(fx, "js-c.sqlite")}`);
    expect(r.msgpackAudit.values).toBe(0);
    expect(r.msgpackAudit.types).toEqual([]);
    const own = join(dir, "own.db");
    expect(
      (await runCli(["migrate", "--from", "file:fixtures/savers/deepagent-filesaver", "--to", `sqlite:${own}`, "-q"]))
        .code,
    ).toBe(0);
    const u = await runCli(["stats", `sqlite:${own}`, "--allowlist"]);
    expect(u.code).toBe(2);
    expect(u.err).toContain("--allowlist");
  });
});

describe("ckpt stats: the msgpack audit on PostgreSQL (blobs and writes)", () => {
  const pgdb = pgTestSchemas("audit");
  it("python-c.pg.sql: the classes of every blob and write, as @msgpack/msgpack decodes them", async () => {
    const s = pgdb.schema("pyc");
    execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
      input: readFileSync(join(fx, "python-c.pg.sql"), "utf8").replaceAll("__SCHEMA__", s),
      stdio: ["pipe", "ignore", "inherit"],
    });
    const expected = new Map<string, number>();
    const rows = await pgdb.query(
      `SELECT type, blob AS v FROM ${s}.checkpoint_blobs UNION ALL SELECT type, blob FROM ${s}.checkpoint_writes`,
    );
    for (const r of rows.rows as Array<{ type: string; v: Buffer | null }>)
      if (r.type === "msgpack" && r.v) classesByDecoder(r.v, expected);
    expect(expected.size).toBeGreaterThan(0);
    const r = await stats(`${PG}?schema=${s}`);
    expect(reportClasses(r)).toEqual(expected);
  });
});

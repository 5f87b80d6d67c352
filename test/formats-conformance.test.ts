/**
 * The shared, data-driven format conformance suite: every valid fixture of every format (fixtures/<format>/valid)
 * must be detected as its format (and claimed by no other format as strongly, except the documented
 * yoagent < 0.13 / phi-core ambiguity), load without loader errors, convert to a canonical checkpoint that
 * passes the Checkpoint schema, and round-trip: native → canonical → native identical (nothing reported lost),
 * canonical → native → canonical identical. Then the all × all conversion matrix over the same samples.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { adapters, detectAll, FORMAT_NAMES, schemaFor, type FormatName } from "../src/formats/index.js";
import type { FormatAdapter, SourceDoc } from "../src/formats/types.js";
import type { Checkpoint } from "../src/generated/types.js";
import { validators } from "../src/generated/validators.js";
import { toPlainNumbers, pointerToPath } from "../src/base/json.js";
import { CkptError } from "../src/base/errors.js";
import { convertCheckpoint } from "../src/core/convert.js";
import { modelMessageSchema } from "ai";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
const AMACS_FILES = ["agent-chat.org", "scratchpad.org"];
/** Pairs that cannot be told apart from the bytes alone (FORMATS.md §1.6/§2.1): same spelling, same shape. */
const AMBIGUOUS = new Set(["yoagent|phi-core", "phi-core|yoagent"]);

interface Fixture {
  format: FormatName;
  name: string;
  doc: SourceDoc;
}

function loadDoc(path: string, name: string): SourceDoc {
  if (statSync(path).isDirectory()) {
    const files: Record<string, string> = {};
    for (const f of AMACS_FILES) if (existsSync(join(path, f))) files[f] = readFileSync(join(path, f), "utf8");
    return { name, files };
  }
  return { name, text: readFileSync(path, "utf8") };
}

function validFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const format of FORMAT_NAMES) {
    const dir = join(FIXTURES, format, "valid");
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).sort()) {
      if (f.endsWith(".expect.json")) continue;
      out.push({ format, name: f, doc: loadDoc(join(dir, f), f) });
    }
  }
  return out;
}

/** An adapter still being written by another engineer (its SCAFFOLD throws reason "unbuilt-format"). */
function isBuilt(a: FormatAdapter): boolean {
  try {
    a.fromCanonical({ schemaVersion: 1, threadId: "t", step: 0, messages: [], state: {} }, { lossy: [] });
    return true;
  } catch (e) {
    return !(e instanceof CkptError && e.reason === "unbuilt-format");
  }
}

function schemaOk(name: string, value: unknown): string | undefined {
  const v = (validators as Record<string, ((d: unknown) => boolean) & { errors?: unknown }>)[name];
  if (!v) return `no validator ${name}`;
  return v(toPlainNumbers(value)) ? undefined : JSON.stringify(v.errors).slice(0, 600);
}

const fixtures = validFixtures();
const built = FORMAT_NAMES.filter((f) => isBuilt(adapters[f]));
const unbuilt = FORMAT_NAMES.filter((f) => !built.includes(f));

describe("format conformance", () => {
  test("every format has a built adapter (no SCAFFOLD left)", () => expect(unbuilt).toEqual([]));
  test("every format has valid fixtures to run through this suite", () =>
    expect(FORMAT_NAMES.filter((f) => !fixtures.some((x) => x.format === f))).toEqual([]));
  for (const fx of fixtures.filter((x) => built.includes(x.format))) {
    describe(`${fx.format}/valid/${fx.name}`, () => {
      const a = adapters[fx.format];
      test("detect picks it, and no other format claims it as strongly", () => {
        const all = detectAll(fx.doc);
        const mine = all.find((d) => d.format === fx.format);
        expect(mine, `${fx.format} does not claim it: ${JSON.stringify(all)}`).toBeDefined();
        const rivals = all.filter(
          (d) =>
            d.format !== fx.format && d.confidence >= mine!.confidence && !AMBIGUOUS.has(`${fx.format}|${d.format}`),
        );
        expect(rivals).toEqual([]);
      });
      test("loads: native schema and loader rules accept it", () => {
        const native = a.parse(fx.doc);
        expect(schemaOk(schemaFor(a, native), native)).toBeUndefined();
        expect((a.lint?.(native, fx.doc) ?? []).filter((i) => i.severity === "error")).toEqual([]);
      });
      test("toCanonical passes the Checkpoint schema; one message pointer per message", () => {
        const native = a.parse(fx.doc);
        const cp = a.toCanonical(native, fx.doc);
        expect(schemaOk("Checkpoint", cp)).toBeUndefined();
        expect(cp.origin?.format).toBe(fx.format);
        expect(a.messagePointers(native)).toHaveLength(cp.messages.length);
      });
      test("native → canonical → native is identical, nothing reported lost", () => {
        const native = a.parse(fx.doc);
        const lossy: unknown[] = [];
        const back = a.fromCanonical(a.toCanonical(native, fx.doc), { lossy: lossy as never[] });
        expect(lossy).toEqual([]);
        expect(back).toEqual(native);
      });
      test("canonical → native → canonical is identical (through the written text)", () => {
        const cp = a.toCanonical(a.parse(fx.doc), fx.doc);
        const written = a.serialize(a.fromCanonical(cp, { lossy: [] }));
        const doc2: SourceDoc = {
          name: fx.doc.name,
          ...("text" in written ? { text: written.text } : { files: written.files }),
        };
        expect(a.toCanonical(a.parse(doc2), doc2)).toEqual(cp);
      });
    });
  }
});

/** What every lossless conversion must keep: roles, text, tool calls and results, images, thinking. */
function essence(cp: Checkpoint) {
  return cp.messages.map((m) => {
    const x = m as unknown as Record<string, unknown>;
    const content = Array.isArray(x.content)
      ? (x.content as Record<string, unknown>[]).map((c) => {
          const { ext: _e, ...rest } = c;
          return rest;
        })
      : undefined;
    const { ext: _e, timestamp: _t, usage: _u, model: _m, provider: _p, stopReason: _s, ...rest } = x;
    return { ...rest, ...(content ? { content } : {}) };
  });
}

function pointerExists(root: unknown, pointer: string): boolean {
  let v: unknown = root;
  for (const seg of pointerToPath(pointer)) {
    if (v === null || typeof v !== "object" || !(seg in (v as object))) return false;
    v = (v as Record<string, unknown>)[seg];
  }
  return true;
}

describe("conversion matrix: every sample × every format", () => {
  for (const fx of fixtures.filter((x) => built.includes(x.format))) {
    const cp = adapters[fx.format].toCanonical(adapters[fx.format].parse(fx.doc), fx.doc);
    for (const to of built) {
      test(`${fx.format}/${fx.name} → ${to}`, () => {
        if (to === "ai-sdk" && !cp.messages.some((m) => ["system", "user", "assistant"].includes(m.role))) {
          // AI SDK 5+ validators reject a chat with no messages: refused as such, not written invalid
          expect(() => convertCheckpoint(cp, to)).toThrow(/no message to write/);
          return;
        }
        const r = convertCheckpoint(cp, to); // throws (exit 70) if the written document fails the target's schema
        for (const n of r.lossy) {
          expect(n.reason.length).toBeGreaterThan(10);
          expect(pointerExists(cp, n.pointer), `lossy pointer ${n.pointer} is not in the checkpoint`).toBe(true);
        }
        if (to === "ckpt") expect(r.lossy).toEqual([]);
        if (to === "deepagent") {
          // the real AI SDK v6 runtime schema must accept every written message (FORMATS.md §5.4)
          const msgs = (r.native as { messages?: unknown[] }).messages ?? [];
          const bad = msgs.map((m, i) => [i, modelMessageSchema.safeParse(m)] as const).filter(([, p]) => !p.success);
          expect(bad.map(([i, p]) => `${i}: ${JSON.stringify(p.error?.issues?.[0])}`)).toEqual([]);
        }
        const t = adapters[to];
        const text = r.output;
        const doc2: SourceDoc = {
          name: fx.doc.name,
          ...("text" in text ? { text: text.text } : { files: text.files }),
        };
        const back = t.toCanonical(t.parse(doc2), doc2);
        if (r.lossy.length === 0) {
          // nothing reported lost: the conversation itself must come back unchanged
          expect(essence(back)).toEqual(essence(cp));
        } else {
          // what is not reported lost must still be there: every message not named in the report keeps its essence
          const named = new Set(
            r.lossy
              .map((n) => /^\/messages\/(\d+)/.exec(n.pointer)?.[1])
              .filter(Boolean)
              .map(Number),
          );
          const keep = essence(cp).filter((_m, i) => !named.has(i));
          const got = essence(back);
          for (const m of keep) expect(got).toContainEqual(m);
        }
      });
    }
  }
});

/**
 * detectAll asks only the adapters whose `detectNeeds` a document meets (the first character that is not white space,
 * one of some strings found in one scan). Its answer must be what asking every adapter gives: compared here on every
 * fixture (ours and ../shared/formats), on prefixes of each (cut anywhere, so with keys missing or half there), with
 * white space, a BOM or other characters put in front, and on texts made to sit on the edges (a string found only
 * overlapping another, an org heading inside a JSON text, a name that makes a text an amacs scratchpad).
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  adapters,
  detectAll,
  firstNonSpace,
  FORMAT_NAMES,
  type Detection,
  type SourceDoc,
} from "../src/formats/index.js";
import { isBundleText, unbundle } from "../src/formats/bundle.js";

const root = join(import.meta.dirname, "..");
const SHARED = "/work/shared/formats";

/** The detection every adapter asked gives (what detectAll did before it picked candidates). */
function everyAdapter(doc: SourceDoc): Detection[] {
  const out: Detection[] = [];
  for (const format of FORMAT_NAMES) {
    const r = adapters[format].detect(doc);
    if (r.confidence > 0) out.push({ format, confidence: r.confidence, version: r.version });
  }
  return out.sort((a, b) => b.confidence - a.confidence);
}

/** Every file under `dir` as a text document, and every folder holding .org files as an amacs home (its files). */
function documents(dir: string): SourceDoc[] {
  const out: SourceDoc[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      const orgs = readdirSync(p).filter((f) => f.endsWith(".org"));
      if (orgs.length)
        out.push({ name: p, files: Object.fromEntries(orgs.map((f) => [f, readFileSync(join(p, f), "utf8")])) });
      out.push(...documents(p));
    } else out.push({ name: p, text: readFileSync(p, "utf8") });
  }
  return out;
}

const fixtures = [...documents(join(root, "fixtures")), ...(existsSync(SHARED) ? documents(SHARED) : [])];

/** A document, its bundle opened, its prefixes, and what other characters in front make of it. */
function variants(doc: SourceDoc): SourceDoc[] {
  if (doc.text === undefined) return [doc];
  const t = doc.text;
  const out: SourceDoc[] = [doc];
  if (isBundleText(t)) {
    try {
      out.push(unbundle(doc));
    } catch {
      // a malformed bundle fixture: its text is compared as it is
    }
  }
  for (const k of [0, 1, 2, 16, 64, 255, 256, 511, 512, 2048, 4096, Math.floor(t.length / 2), t.length - 1])
    if (k < t.length) out.push({ name: doc.name, text: t.slice(0, k) });
  for (const lead of [
    "\uFEFF",
    " \n\t\r",
    "\u2028\u00a0\u3000",
    "\u200b",
    "x",
    "\n* Tick 1\n",
    "#+TITLE: Agent Scratchpad\n",
  ])
    out.push({ name: doc.name, text: lead + t });
  out.push({ name: "home/scratchpad.org", text: t }, { name: "C:\\home\\scratchpad.org", text: t });
  return out;
}

const edges: string[] = [
  "",
  "   \n",
  "{",
  "[",
  "[]",
  "{}",
  "\uFEFF[ ]",
  "{\n* Tick 1\n** Human Prompt\n",
  "[\n#+TITLE: AMACS Scratchpad\n",
  "#+TITLE: Agent Scratchpad\n",
  '{"format":"langgraph"loops": 1, "library": "js"}',
  '{"session_id"loops": 1, "agent_id": 1, "last_active_at": 1}',
  '{"loops": [], "session_id": "s", "agent_id": "a"}',
  '{"agent_id": "a", "session_id": "s", "last_active_at": 1, "formation": {}}',
  '{"schemaVersion": 1, "messages": []}',
  '\uFEFF {"schemaVersion":1,"messages":[]}',
  '{"schemaVersion"  :\n 1 ,"threadId":"t","step":0,"messages":[],"state":{}}',
  '{"threadId":"t","step":0,"messages":[],"state":{}}',
  '{"id": "e1", "message": {"role": "user"}, "parent_id": null}',
  '\n\n{"id":"e1","message":{},"timestamp":5}\n{"id":"e2"}',
  '{"identity": {"name": "x"}, "token_budget": 1}',
  '{"format": "langgraph", "library": "python"}',
  '[{"role":"user","content":[{"type":"text","text":"hi"}]}]',
  '[{"content":[{"type":"text","text":"hi"}],"role":"user","stop_reason":"end_turn"}]',
];

describe("detectAll: only the adapters that can claim a document are asked, with the same answer", () => {
  it("every fixture, its prefixes and its variants: the detection of every adapter asked", () => {
    expect(fixtures.length).toBeGreaterThan(100);
    const claimed = new Set<string>();
    let compared = 0;
    for (const doc of [
      ...fixtures.flatMap(variants),
      ...edges.flatMap((text) => variants({ name: "edge.json", text })),
    ]) {
      const want = everyAdapter(doc);
      expect(
        detectAll(doc),
        `${doc.name} (${doc.text === undefined ? "files" : JSON.stringify(doc.text.slice(0, 40))})`,
      ).toEqual(want);
      for (const d of want) claimed.add(d.format);
      compared++;
    }
    expect(compared).toBeGreaterThan(2000);
    // the comparison covers documents that each format claims, not only ones it does not
    expect([...claimed].sort()).toEqual([...FORMAT_NAMES].sort());
  });

  it("firstNonSpace skips exactly what the detections' \\s skips (every UTF-16 code unit)", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      expect(firstNonSpace(ch + "{"), `U+${c.toString(16)}`).toBe(/\s/.test(ch) ? "{" : ch);
    }
    expect(firstNonSpace(undefined)).toBe("");
    expect(firstNonSpace(" \t\n")).toBe("");
  });

  it("amacs: a text named scratchpad.org (after a slash or a backslash) is a scratchpad whatever it holds", () => {
    for (const name of ["scratchpad.org", "home/scratchpad.org", "C:\\home\\scratchpad.org", "a\\b/scratchpad.org"]) {
      expect(adapters.amacs.detect({ name, text: "notes" }), name).toEqual({ confidence: 0.9, version: "v4" });
    }
    for (const name of ["scratchpad.org/notes", "my-scratchpad.org.txt", "home\\scratchpad.org\\x"])
      expect(adapters.amacs.detect({ name, text: "notes" }), name).toEqual({ confidence: 0 });
  });
});

/**
 * The quick validators (scripts/gen.mjs: the verdict only, no errors) answer exactly what the full ones answer: on
 * every JSON fixture against every schema, and on broken copies of each fixture against the schema of its format.
 * schemaIssues trusts a quick "valid" without running the full validator, so a quick validator that passed what the
 * full one refuses would make ckpt confidently wrong.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { quickValidators, validators } from "../src/generated/validators.js";
import { rng } from "./helpers/rng.js";

const root = join(import.meta.dirname, "..", "fixtures");
const full = validators as unknown as Record<string, (v: unknown) => boolean>;
const quick = quickValidators as unknown as Record<string, (v: unknown) => boolean>;
const names = Object.keys(full);

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith(".json")) out.push(p);
  }
  return out;
}
const docs: Array<{ file: string; value: unknown }> = [];
for (const file of walk(root)) {
  try {
    docs.push({ file, value: JSON.parse(readFileSync(file, "utf8")) });
  } catch {
    // not JSON (a garbage fixture): nothing to validate
  }
}

/** Every container (object or array) in the value, with its parent chain left out: the places a mutation can hit. */
function containers(v: unknown, out: Array<Record<string, unknown> | unknown[]> = []): typeof out {
  if (Array.isArray(v)) {
    out.push(v);
    for (const x of v) containers(x, out);
  } else if (v && typeof v === "object") {
    out.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) containers(x, out);
  }
  return out;
}

const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, "", "x", true, [], {}, [{}], { type: "text" }, { role: "user" }];

/** A copy of `value` with one change: a key removed, a value replaced, an item dropped or added, a key added. */
function mutated(value: unknown, next: () => number): unknown {
  const copy = structuredClone(value);
  const places = containers(copy);
  if (places.length === 0) return REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)];
  const c = places[Math.floor(next() * places.length)]!;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
  const kind = Math.floor(next() * 4);
  if (Array.isArray(c)) {
    if (kind === 0 && c.length) c.splice(Math.floor(next() * c.length), 1);
    else if (kind === 1 || !c.length) c.push(structuredClone(pick(REPLACEMENTS)));
    else c[Math.floor(next() * c.length)] = structuredClone(pick(REPLACEMENTS));
  } else {
    const keys = Object.keys(c);
    if (kind === 0 && keys.length) delete c[pick(keys)];
    else if (kind === 1 || !keys.length)
      c[pick(["extra", "type", "role", "content", "id", "__x"])] = pick(REPLACEMENTS);
    else c[pick(keys)] = structuredClone(pick(REPLACEMENTS));
  }
  return copy;
}

describe("quick validators", () => {
  it("exist for every schema", () => {
    expect(Object.keys(quick).sort()).toEqual([...names].sort());
  });

  it("give the full validators' verdict on every JSON fixture against every schema", () => {
    let valid = 0;
    for (const { file, value } of docs)
      for (const n of names) {
        const want = full[n]!(value);
        if (quick[n]!(value) !== want) expect.fail(`${n} on ${file}: quick ${!want}, full ${want}`);
        if (want) valid++;
      }
    expect(valid).toBeGreaterThan(100); // the fixtures' own schemas pass: both verdicts were compared
  });

  it("give the full validators' verdict on broken copies of every fixture", () => {
    const next = rng(41);
    let invalid = 0;
    let compared = 0;
    for (const { file, value } of docs) {
      const own = names.filter((n) => full[n]!(value));
      for (const n of own)
        for (let k = 0; k < 25; k++) {
          const v = mutated(value, next);
          const want = full[n]!(v);
          if (quick[n]!(v) !== want) expect.fail(`${n} on a broken ${file}: quick ${!want}, full ${want}`);
          compared++;
          if (!want) invalid++;
        }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(invalid).toBeGreaterThan(compared / 5);
  });
});

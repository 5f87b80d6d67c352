/**
 * Assertions over what `--redact` wrote or showed, for the seeded corpus (./secret-corpus.ts): no seed is left, raw or
 * JSON-escaped; and a redacted text is the plain one with only the seeds replaced by placeholders of their kind.
 */
import { expect } from "vitest";
import { SEEDS } from "./secret-corpus.js";

const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A seed as it appears in a JSON text. */
export const inJson = (v: string) => JSON.stringify(v).slice(1, -1);

/** No seed in a text (as written raw, or JSON-escaped). */
export function expectNoSeed(text: string, what: string): void {
  for (const s of SEEDS) {
    if (s.kind === "path") expect(text, `${what}: ${s.name}`).not.toMatch(/\/home\/alice\b/);
    else {
      expect(text.includes(s.value), `${what}: ${s.name}`).toBe(false);
      expect(text.includes(inJson(s.value)), `${what}: ${s.name} (JSON-escaped)`).toBe(false);
    }
  }
}

const NAME: Record<string, string> = {
  secrets: "SECRET",
  email: "EMAIL",
  phone: "PHONE",
  ip: "IP",
  card: "CARD",
  path: "USER",
};

/**
 * `redacted` is `plain` with each seed replaced by a placeholder of its kind, and nothing else changed: `plain` with
 * the seeds cut out as a pattern, placeholders allowed where they were. `minCuts`: how many seed places `plain` must
 * hold at least (the check means nothing on a text without seeds).
 */
export function expectOnlySeedsChanged(plain: string, redacted: string, what: string, minCuts = 1): void {
  const cuts: Array<[number, number, string]> = [];
  for (const s of [...SEEDS].sort((a, b) => b.value.length - a.value.length)) {
    const forms = s.kind === "path" ? [] : [...new Set([s.value, inJson(s.value)])];
    for (const f of forms)
      for (let i = plain.indexOf(f); i >= 0; i = plain.indexOf(f, i + 1))
        if (!cuts.some(([a, b]) => i < b && a < i + f.length)) cuts.push([i, i + f.length, s.kind]);
    if (s.kind === "path")
      for (let i = plain.indexOf("/home/alice"); i >= 0; i = plain.indexOf("/home/alice", i + 1))
        cuts.push([i + 6, i + 11, "path"]);
  }
  cuts.sort((a, b) => a[0] - b[0]);
  let re = "^";
  let at = 0;
  for (const [a, b, kind] of cuts) {
    re += `${esc(plain.slice(at, a))}<${NAME[kind]}_\\d+>`;
    at = b;
  }
  re += `${esc(plain.slice(at))}$`;
  expect(cuts.length, what).toBeGreaterThanOrEqual(minCuts);
  expect(new RegExp(re).test(redacted), `${what}: only the seeds changed`).toBe(true);
}

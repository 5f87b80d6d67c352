/**
 * Every fixture under fixtures/<format>/{valid,invalid,warn} through the full `ckpt validate` pipeline
 * (detection, native schema, adapter lints, generic lints). The expected values live in the fixtures'
 * .expect.json files, worked out by hand from the file and FORMATS.md. Runs whatever fixtures exist now;
 * a case without its expect file fails.
 */
import { describe, expect, test } from "vitest";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { runValidation } from "../src/cli/commands/validate.js";
import { validationExitCode as exitCodeOf } from "../src/core/validation.js";
import { detectAll } from "../src/formats/index.js";
import { FORMAT_NAMES } from "../src/formats/types.js";
import { readSource } from "../src/cli/input.js";
import { parseInput } from "../src/savers/address.js";

const ROOT = join(import.meta.dirname, "..");
const FIXTURES = join(ROOT, "fixtures");
const io = { stdin: Readable.from([]), cwd: ROOT };

const formats = readdirSync(FIXTURES).filter((f) => (FORMAT_NAMES as readonly string[]).includes(f));

test("every format has valid fixtures, and invalid or warn ones (none is skipped for want of fixtures)", () => {
  const missing = FORMAT_NAMES.filter((f) => {
    const has = (kind: string) =>
      existsSync(join(FIXTURES, f, kind)) && readdirSync(join(FIXTURES, f, kind)).length > 0;
    return !has("valid") || !(has("invalid") || has("warn"));
  });
  expect(missing, "fixtures/<format>/valid and fixtures/<format>/{invalid|warn} for every format").toEqual([]);
});

for (const format of formats) {
  for (const kind of ["valid", "invalid", "warn"] as const) {
    const dir = join(FIXTURES, format, kind);
    if (!existsSync(dir)) continue;
    const cases = readdirSync(dir).filter((f) => !f.endsWith(".expect.json"));
    describe(`${format}/${kind}`, () => {
      for (const c of cases) {
        const rel = `fixtures/${format}/${kind}/${c}`;
        test(c, async () => {
          const doc = await readSource(parseInput(rel, { cwd: io.cwd }), { ...io, stdin: () => io.stdin });
          const detected = detectAll(doc).map((d) => d.format);
          expect(detected, `${rel}: ${format} should be among the detected formats`).toContain(format);
          if (kind === "valid") {
            const r = await runValidation([rel], io, { format });
            const f = r.files[0]!;
            expect(f.fatal, JSON.stringify(f.fatal)).toBeUndefined();
            expect(
              f.issues.filter((i) => i.severity === "error"),
              JSON.stringify(f.issues),
            ).toEqual([]);
            expect(exitCodeOf(r)).toBe(0);
            return;
          }
          const expectPath = join(dir, c + ".expect.json");
          expect(existsSync(expectPath), `${rel} has no ${c}.expect.json beside it`).toBe(true);
          const want = JSON.parse(readFileSync(expectPath, "utf8"));
          expect(want.format).toBe(format);
          expect(typeof want.why).toBe("string");
          const r = await runValidation([rel], io, { format });
          const f = r.files[0]!;
          for (const issue of want.issues) expect(f.issues).toContainEqual(expect.objectContaining(issue));
          expect(exitCodeOf(r)).toBe(want.exit);
          if (kind === "warn") {
            expect(want.exit).toBe(0);
            const strict = await runValidation([rel], io, { format, strict: true });
            expect(exitCodeOf(strict)).toBe(1);
          } else {
            expect(want.exit).toBe(1);
          }
        });
      }
    });
  }
}

test("every expect file belongs to a case", () => {
  for (const format of formats) {
    for (const kind of ["valid", "invalid", "warn"]) {
      const dir = join(FIXTURES, format, kind);
      if (!existsSync(dir)) continue;
      for (const e of readdirSync(dir).filter((f) => f.endsWith(".expect.json"))) {
        expect(
          existsSync(join(dir, e.slice(0, -".expect.json".length))),
          `${format}/${kind}/${e} has no case beside it`,
        ).toBe(true);
      }
    }
  }
});

test("an amacs case folder counts as one case", () => {
  // guard for the layout rule: a folder under valid/invalid/warn must hold agent-chat.org or scratchpad.org
  for (const format of formats) {
    for (const kind of ["valid", "invalid", "warn"]) {
      const dir = join(FIXTURES, format, kind);
      if (!existsSync(dir)) continue;
      for (const c of readdirSync(dir)) {
        if (statSync(join(dir, c)).isDirectory()) {
          const names = readdirSync(join(dir, c));
          expect(
            names.some((n) => n === "agent-chat.org" || n === "scratchpad.org"),
            `${format}/${kind}/${c}`,
          ).toBe(true);
        }
      }
    }
  }
});

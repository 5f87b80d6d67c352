/**
 * When migrate may start its check worker on its own (cli/check-pool.ts checkWorkerMayStart): only when two cores are
 * idle by the 1-minute load average — one for the worker, one for the folder reader or the target's server beside the
 * main thread. The folder reader needs one idle core (base/cores.ts idleCore). Expected answers worked out by hand
 * from "a core for each helper and one for the main thread, and load ≤ cores − helpers".
 */
import { describe, expect, it } from "vitest";
import { checkWorkerMayStart } from "../src/cli/check-pool.js";
import { idleCores } from "../src/base/cores.js";

describe("idle cores for helper threads", () => {
  it("the check worker needs two idle cores: never on a quiet 2-core machine, on 3 cores up to load 1, on 4 up to load 2", () => {
    const cases: Array<[number, number, boolean]> = [
      [0, 1, false],
      [0, 2, false],
      [0.5, 2, false],
      [0, 3, true],
      [1, 3, true],
      [1.01, 3, false],
      [2, 4, true],
      [2.5, 4, false],
      [5.9, 8, true],
    ];
    for (const [load, cores, want] of cases)
      expect([load, cores, checkWorkerMayStart(load, cores)]).toEqual([load, cores, want]);
  });

  it("one helper (the folder reader) needs one idle core", () => {
    expect(idleCores(1, 0.9, 2)).toBe(true);
    expect(idleCores(1, 1, 2)).toBe(true);
    expect(idleCores(1, 1.2, 2)).toBe(false);
    expect(idleCores(1, 0, 1)).toBe(false); // one core: nothing runs beside the main thread
    expect(idleCores(1, 0, 2)).toBe(true);
  });
});

/**
 * #41: `ls` counts a DeltaChannel head's messages without building the list (formats/langgraph/delta.ts
 * `replayDeltaCount`, `messagesDeltaCount`). The count must be the length of the list the replay builds, for every
 * sequence of writes: ids replaced, removed (twice, unknown, before they are added), removed all (JS and Python differ),
 * messages without ids, ids repeated in the seed, Overwrite, file updates, values that are not messages. Random
 * sequences from a fixed seed, each compared with `replayDelta` / `messagesDeltaReducer`.
 */
import { describe, expect, it } from "vitest";
import {
  messagesDeltaCount,
  messagesDeltaReducer,
  replayDelta,
  replayDeltaCount,
  REMOVE_ALL_MESSAGES,
} from "../src/formats/langgraph/delta.js";
import type { LgLibrary } from "../src/formats/langgraph/types.js";
import { rng } from "./helpers/rng.js";

const lc = (cls: string, id?: unknown) => ({
  lc: 1,
  type: "constructor",
  id: ["langchain_core", "messages", cls],
  kwargs: { content: "x", ...(id === undefined ? {} : { id }) },
});

function message(r: () => number): unknown {
  const ids = ["a", "b", "c", "d", REMOVE_ALL_MESSAGES];
  const id = r() < 0.15 ? undefined : ids[Math.floor(r() * (r() < 0.9 ? 4 : 5))];
  const k = r();
  if (k < 0.45) return lc(r() < 0.5 ? "HumanMessage" : "AIMessage", id);
  if (k < 0.65) return lc("RemoveMessage", id ?? "a");
  if (k < 0.75) return { type: "remove", id: id ?? "b" };
  if (k < 0.85) return { role: "user", content: "y", ...(id === undefined ? {} : { id }) };
  if (k < 0.9) return lc("AIMessage", 7); // an id that is not a string
  if (k < 0.95) return "plain text";
  return ["human", "a pair"];
}

function write(r: () => number): unknown {
  const k = r();
  if (k < 0.6) return Array.from({ length: Math.floor(r() * 4) }, () => message(r));
  if (k < 0.8) return message(r);
  if (k < 0.85) return { __overwrite__: Array.from({ length: Math.floor(r() * 3) }, () => message(r)) };
  if (k < 0.9) return { "/f.txt": { content: "z" } };
  if (k < 0.95) return 42; // not a message: the reducer is not one ckpt knows
  return [];
}

describe("DeltaChannel messages counted without building the list", () => {
  it("messagesDeltaCount is the reducer's length, for random seeds and writes, both libraries", () => {
    const r = rng(41);
    for (let n = 0; n < 5000; n++) {
      const state = Array.from({ length: Math.floor(r() * 5) }, () => message(r)).filter(
        (m) => !(Array.isArray(m) && typeof m[1] !== "string"),
      );
      const writes = Array.from({ length: Math.floor(r() * 6) }, () =>
        r() < 0.7 ? Array.from({ length: Math.floor(r() * 4) }, () => message(r)) : message(r),
      );
      for (const library of ["js", "python"] as LgLibrary[])
        expect(messagesDeltaCount(state, writes, library), JSON.stringify({ state, writes, library })).toBe(
          messagesDeltaReducer(state, writes, library).length,
        );
    }
  });

  it("replayDeltaCount is the length of replayDelta's list (undefined when it gives none)", () => {
    const r = rng(7);
    let counted = 0;
    for (let n = 0; n < 5000; n++) {
      const seed =
        r() < 0.3
          ? undefined
          : r() < 0.8
            ? Array.from({ length: Math.floor(r() * 4) }, () => message(r))
            : { "/a.md": { content: "q" } };
      const values = Array.from({ length: Math.floor(r() * 6) }, () => write(r));
      for (const context of ["js", "python", { library: "python", deepagents: true }] as const) {
        const full = replayDelta(seed, values, context);
        const want = "value" in full && Array.isArray(full.value) ? full.value.length : undefined;
        expect(replayDeltaCount(seed, values, context), JSON.stringify({ seed, values, context })).toBe(want);
        if (want !== undefined) counted++;
      }
    }
    expect(counted).toBeGreaterThan(5000); // most cases give a list (the comparison is not vacuous)
  });

  it("ids repeated in the seed: one removal takes one message, and only once", () => {
    const state = [lc("HumanMessage", "a"), lc("AIMessage", "a"), lc("AIMessage")];
    const writes = [[lc("RemoveMessage", "a")], [lc("RemoveMessage", "a")], [lc("HumanMessage", "a")]];
    expect(messagesDeltaReducer(state, writes, "js").length).toBe(3);
    expect(messagesDeltaCount(state, writes, "js")).toBe(3);
  });
});

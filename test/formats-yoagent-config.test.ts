/**
 * The yoagent configuration schemas (schemas/{ContextConfig,ExecutionLimits,CacheConfig,ToolExecutionStrategy}.json)
 * against the samples produced by yoagent 0.18's own serde code and the accept/reject rules of FORMATS.md §1.4.
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validators } from "../src/generated/validators.js";
import { parseJson, toPlainNumbers } from "../src/base/json.js";

const G = join(import.meta.dirname, "..", "fixtures", "yoagent", "config") + "/";
const load = (f: string) => parseJson(readFileSync(G + f, "utf8"));
const ok = (schema: keyof typeof validators, v: unknown) => validators[schema](toPlainNumbers(v));

describe("yoagent config schemas", () => {
  test("accept the real 0.18 samples (usize::MAX overrides included)", () => {
    const cc = load("context_config.default.v0.18.json") as Record<string, Record<string, unknown>>;
    expect(cc.tool_output_max_lines_overrides!.read_file).toBe(18446744073709551615n);
    expect(ok("ContextConfig", cc)).toBe(true);
    expect(ok("ExecutionLimits", load("execution_limits.default.v0.18.json"))).toBe(true);
    expect(ok("ExecutionLimits", load("execution_limits.custom.v0.18.json"))).toBe(true);
    for (const c of load("cache_config.variants.v0.18.json") as unknown[]) expect(ok("CacheConfig", c)).toBe(true);
    for (const t of load("tool_execution_strategy.variants.v0.18.json") as unknown[])
      expect(ok("ToolExecutionStrategy", t)).toBe(true);
  });
  test("reject what serde rejects", () => {
    // < 0.15 configs lack compact_target_ratio and truncate_tool_output_on_append
    expect(
      ok("ContextConfig", {
        max_context_tokens: 1,
        system_prompt_tokens: 1,
        keep_recent: 1,
        keep_first: 1,
        tool_output_max_lines: 50,
      }),
    ).toBe(false);
    // Duration is {secs, nanos}, a plain number fails
    expect(ok("ExecutionLimits", { max_turns: 1, max_total_tokens: 1, max_duration: 600 })).toBe(false);
    // CacheStrategy::Manual inner fields are snake_case only
    expect(
      ok("CacheConfig", {
        enabled: true,
        strategy: { manual: { cacheSystem: true, cacheTools: true, cacheMessages: true } },
      }),
    ).toBe(false);
    expect(ok("CacheConfig", { enabled: true, strategy: "manual" })).toBe(false);
    // batched needs a size; sizes are usize (no negatives)
    expect(ok("ToolExecutionStrategy", { type: "batched" })).toBe(false);
    expect(ok("ToolExecutionStrategy", { type: "batched", size: -1 })).toBe(false);
    expect(ok("ToolExecutionStrategy", { type: "Parallel" })).toBe(false);
  });
  test("accept what serde accepts: optional keys absent, explicit nulls for Option fields, unknown keys", () => {
    expect(ok("ExecutionLimits", { max_turns: 1, max_total_tokens: 1, max_duration: { secs: 1, nanos: 0 } })).toBe(
      true,
    );
    expect(ok("CacheConfig", { enabled: false, strategy: "auto" })).toBe(true);
    expect(
      ok("ContextConfig", {
        max_context_tokens: 1,
        system_prompt_tokens: 1,
        keep_recent: 1,
        keep_first: 1,
        tool_output_max_lines: 1,
        compact_target_ratio: 0.7,
        compact_headroom_turns: null,
        truncate_tool_output_on_append: true,
        future_key: 1,
      }),
    ).toBe(true);
  });
});

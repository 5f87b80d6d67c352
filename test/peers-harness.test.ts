import { describe, expect, it } from "vitest";
import { runPeer } from "./helpers/peers.js";

describe("the Node 22 peer harness", () => {
  it("runs peer scripts under Node 22 with every peer major installed", async () => {
    const { out } = await runPeer<{ node: string; ai: Record<string, string> }>("scripts/versions.mjs");
    expect(Number(out.node.slice(1).split(".")[0])).toBeGreaterThanOrEqual(22);
    expect(Object.entries(out.ai).map(([major, version]) => [major, version.split(".")[0]])).toEqual([
      ["4", "4"],
      ["5", "5"],
      ["6", "6"],
      ["7", "7"],
    ]);
    // ckpt itself keeps running on the machine's Node (the package supports Node >= 20)
    expect(Number(process.version.slice(1).split(".")[0])).toBeGreaterThanOrEqual(20);
  });
});

/**
 * An address is parsed once, where it is typed, into a typed value: the store (scheme, location, options), the
 * thread, the namespace and the checkpoint. One rule splits it: the first `#` ends the store, so a thread id may
 * hold `#` (deep-agent's `user:42/session#1`); `%23` puts a `#` into a path. The same rule holds where the thread is
 * optional (`convert -o`, `replay --save-to`).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAddress, parseTarget, splitAddress } from "../src/savers/address.js";
import { runCli } from "./helpers/cli-io.js";

const ROOT = join(import.meta.dirname, "..");

describe("one rule: the first '#' ends the store", () => {
  it("parseAddress: store, thread holding '#', namespace and checkpoint, typed", () => {
    const a = parseAddress("sqlite:./x.db?namespace=prod#user:42/session#1@~2", { env: {} });
    expect(a.store).toMatchObject({ kind: "sqlite", location: "./x.db" });
    expect(a.store.params.get("namespace")).toBe("prod");
    expect(a.threadId).toBe("user:42/session#1");
    expect(a.selector).toEqual({ kind: "back", n: 2 });
    expect(a.namespace).toBe("prod");
  });

  it("the same split where the thread is optional, and in the string-level splitter", () => {
    // (splitThreadRef's rule, now parseTarget's: the store part parsed, the thread percent-decoded)
    const t = parseTarget("out.sqlite#a#b", { env: {} });
    expect({ uri: t.store.raw, threadId: t.threadId }).toEqual({ uri: "out.sqlite", threadId: "a#b" });
    expect(splitAddress("file:./store#a#b")).toEqual({ store: "file:./store", fragment: "a#b" });
    const u = parseTarget("out.sqlite", { env: {} });
    expect({ uri: u.store.raw, ...(u.threadId !== undefined ? { threadId: u.threadId } : {}) }).toEqual({
      uri: "out.sqlite",
    });
  });

  it("the namespace rule: the URI's, else the flag's; both, disagreeing, is a usage error", () => {
    expect(parseAddress("memory:#t", { namespace: "a", env: {} }).namespace).toBe("a");
    expect(parseAddress("memory:?namespace=a#t", { namespace: "a", env: {} }).namespace).toBe("a");
    expect(() => parseAddress("memory:?namespace=a#t", { namespace: "b", env: {} })).toThrow(
      /namespace given twice: 'a' in the URI and 'b' by --namespace/,
    );
  });

  it("ckpt show reads the thread whose id holds '#' from a FileSaver folder", async () => {
    const folder = join(ROOT, "fixtures", "savers", "deepagent-filesaver");
    const r = await runCli(["show", `file:${folder}#user:42/session#1`, "--json"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).threadId).toBe("user:42/session#1");
  });
});

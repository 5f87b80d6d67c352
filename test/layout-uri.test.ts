/** #41: migrate's extra writers reopen the target in the layout it was found to hold, without probing it again. */
import { describe, expect, it } from "vitest";
import { parseSaverUri, type OpenedStore } from "../src/savers/index.js";
import { uriOfLayout } from "../src/savers/layout-uri.js";

const opened = (uri: string, layout: string) => ({ layout, uri: parseSaverUri(uri, {}) }) as unknown as OpenedStore;

describe("uriOfLayout", () => {
  it("names ckpt's layout on a database of ckpt's own, keeping the other parameters and the connection", () => {
    const u = uriOfLayout(opened("postgres://u@127.0.0.1:5432/db?schema=s1&namespace=n", "ckpt"));
    expect(u.params.get("layout")).toBe("ckpt");
    expect(u.params.get("schema")).toBe("s1");
    expect(u.params.get("namespace")).toBe("n");
    expect(u.location).toBe(parseSaverUri("postgres://u@127.0.0.1:5432/db?schema=s1", {}).location);
    expect(uriOfLayout(opened("sqlite:/tmp/x.db", "ckpt")).params.get("layout")).toBe("ckpt");
  });
  it("leaves other layouts, other stores and a layout already named as they are", () => {
    const lg = opened("postgres://u@127.0.0.1:5432/db?schema=s1", "langgraph");
    expect(uriOfLayout(lg)).toBe(lg.uri);
    const redis = opened("redis://127.0.0.1:6379", "ckpt");
    expect(uriOfLayout(redis)).toBe(redis.uri);
    const named = opened("postgres://u@127.0.0.1:5432/db?layout=ckpt", "ckpt");
    expect(uriOfLayout(named)).toBe(named.uri);
  });
});

/**
 * pgErrorText: a socket that fails under a PostgreSQL query reads as a lost connection. The real event is in
 * test/pg-connection-loss.test.ts (a server backend terminated mid-migration: depending on whether ckpt was sending
 * or reading at that moment, pg reports "write EPIPE" or the server's "terminating connection"; both must read as a
 * lost connection); here, the two shapes side by side with an SQL error, which keeps its own words.
 */
import { describe, expect, it } from "vitest";
import { pgErrorText } from "../src/savers/pg-errors.js";

describe("pgErrorText", () => {
  it("a socket error (Node's shape: code, errno, syscall) names the lost connection; an SQL error is as it was", () => {
    const epipe = Object.assign(new Error("write EPIPE"), { code: "EPIPE", errno: -32, syscall: "write" });
    expect(pgErrorText(epipe)).toBe("the connection to PostgreSQL was lost (write EPIPE)");
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", errno: -104, syscall: "read" });
    expect(pgErrorText(reset)).toBe("the connection to PostgreSQL was lost (read ECONNRESET)");
    const sql = Object.assign(new Error('duplicate key value violates unique constraint "x"'), { code: "23505" });
    expect(pgErrorText(sql)).toBe('duplicate key value violates unique constraint "x"');
    expect(pgErrorText(new Error("Connection terminated unexpectedly"))).toBe("Connection terminated unexpectedly");
  });
});

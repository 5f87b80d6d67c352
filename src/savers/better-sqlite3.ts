/**
 * better-sqlite3, loaded when an SQLite store is opened (never to read files). It is a native module, the one package
 * ckpt cannot carry in its standalone build (bin/standalone/ckpt.cjs, what the GitHub Action and the pre-commit hook
 * run), and an install may lack it where it could not be built: then opening an SQLite store is a store error (exit 4)
 * saying how to install it, not an internal error with a stack.
 */
import type BetterSqlite3 from "better-sqlite3";
import { storeError } from "../base/errors.js";

export async function loadBetterSqlite3(uri: string): Promise<typeof BetterSqlite3> {
  try {
    return (await import("better-sqlite3")).default;
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if ((code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") && /'better-sqlite3'/.test(String(e)))
      throw storeError(
        "store-driver",
        "SQLite stores need the better-sqlite3 package, which is not installed here: npm install better-sqlite3 " +
          "(beside ckpt, or in a folder on NODE_PATH); files and other stores need nothing more",
        { file: uri },
        e,
      );
    throw e;
  }
}

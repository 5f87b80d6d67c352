/**
 * A throwaway PostgreSQL with the pgvector extension for tests that need real vector tables (this machine's
 * PostgreSQL has no pgvector): test/helpers/pglite-server.mjs (PGlite with pgvector behind pglite-socket) in a child
 * process of this Node, on a free port. `stop()` ends that process (only it is ever signalled); its database lives in
 * memory and goes with it.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface TestPglite {
  port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  stop(): Promise<void>;
}

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), "pglite-server.mjs");

export function startPglite(opts: { maxConnections?: number } = {}): Promise<TestPglite> {
  const proc = spawn(process.execPath, [SCRIPT, String(opts.maxConnections ?? 8)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  const exited = new Promise<void>((r) => proc.once("exit", () => r()));
  let err = "";
  proc.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      proc.kill("SIGTERM");
      reject(new Error(`the PGlite server did not start in 60 s\n${err}`));
    }, 60_000);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the PGlite server exited (${code}) before listening\n${err}`));
    });
    proc.stdout.on("data", (d) => {
      out += d;
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      const { port } = JSON.parse(out) as { port: number };
      resolve({
        port,
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
          await exited;
        },
      });
    });
  });
}

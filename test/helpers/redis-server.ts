/**
 * A throwaway Redis server for fault tests: `redis-server` without persistence (`--save "" --appendonly no`) on a
 * free 127.0.0.1 port, optionally with a password. `kill9()` kills it (SIGKILL: what it held is gone), `start()` starts
 * it again, empty, on the same port; `stop()` ends it. Only the process started here is ever signalled.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { promisify } from "node:util";
import { freePorts } from "./redis-cluster.js";

const run = promisify(execFile);

export interface TestRedis {
  port: number;
  /** `redis://127.0.0.1:<port>` (with the password, when one is set) */
  url: string;
  start(): Promise<void>;
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(opts: { password?: string } = {}): Promise<TestRedis> {
  const [port] = await freePorts(1);
  let proc: ChildProcess | undefined;
  const auth = opts.password ? ["-a", opts.password, "--no-auth-warning"] : [];
  const exited = (p: ChildProcess) =>
    p.exitCode !== null || p.signalCode !== null ? Promise.resolve() : new Promise((r) => p.once("exit", r));
  const server: TestRedis = {
    port: port!,
    url: `redis://${opts.password ? `:${opts.password}@` : ""}127.0.0.1:${port}`,
    async start() {
      const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
      if (opts.password) args.push("--requirepass", opts.password);
      proc = spawn("redis-server", args, { stdio: "ignore" });
      proc.once("error", () => undefined); // reported by the wait below
      const until = Date.now() + 20_000;
      for (;;) {
        const pong = await run("redis-cli", ["-p", String(port), ...auth, "ping"], { timeout: 5000 }).catch(
          () => undefined,
        );
        if (pong?.stdout.trim() === "PONG") return;
        if (Date.now() > until)
          throw new Error(`redis-server on port ${port} did not start (is redis-server installed?)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill9() {
      if (!proc) return;
      proc.kill("SIGKILL");
      await exited(proc);
    },
    async stop() {
      if (!proc) return;
      proc.kill("SIGTERM");
      await exited(proc);
    },
  };
  await server.start();
  return server;
}

/**
 * A throwaway 3-master Redis Cluster on 127.0.0.1 for tests: three `redis-server --cluster-enabled yes` processes on
 * free ports (client and cluster-bus ports both asked of the OS), joined with `redis-cli --cluster create`, in a temp
 * folder that `stop()` removes after stopping the servers. Needs only the redis-server / redis-cli that CI already has.
 */
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface TestCluster {
  /** client ports of the three masters */
  ports: number[];
  /** `redis://127.0.0.1:<first port>` */
  url: string;
  stop(): Promise<void>;
}

/** Ports the OS says are free (all held open together, so they are distinct). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<import("node:net").Server>((resolve, reject) => {
          const s = createServer();
          s.once("error", reject);
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as import("node:net").AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run("redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], { timeout: 20_000 })).stdout;
}

async function waitFor(what: string, ok: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await ok().catch(() => false)) return;
    if (Date.now() > until) throw new Error(`redis cluster for tests: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startRedisCluster(masters = 3): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), "ckpt-redis-cluster-"));
  const ports = await freePorts(masters * 2);
  const procs: ChildProcess[] = [];
  const stop = async () => {
    for (const p of procs) if (p.exitCode === null) p.kill("SIGTERM");
    await Promise.all(procs.map((p) => (p.exitCode !== null ? undefined : new Promise((r) => p.once("exit", r)))));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = ports[i]!;
      const p = spawn(
        "redis-server",
        [
          "--port",
          String(port),
          "--cluster-port",
          String(ports[masters + i]),
          "--bind",
          "127.0.0.1",
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(dir, `nodes-${port}.conf`),
          "--dir",
          dir,
          "--save",
          "",
          "--appendonly",
          "no",
          "--daemonize",
          "no",
          "--logfile",
          join(dir, `redis-${port}.log`),
        ],
        { stdio: "ignore" },
      );
      p.once("error", () => undefined); // reported by the wait below (e.g. redis-server not installed)
      procs.push(p);
    }
    for (const port of ports.slice(0, masters))
      await waitFor(
        `redis-server on port ${port} (is redis-server installed?)`,
        async () => (await cli(port, "ping")).trim() === "PONG",
      );
    await run(
      "redis-cli",
      [
        "--cluster",
        "create",
        ...ports.slice(0, masters).map((p) => `127.0.0.1:${p}`),
        "--cluster-replicas",
        "0",
        "--cluster-yes",
      ],
      { timeout: 30_000 },
    );
    for (const port of ports.slice(0, masters))
      await waitFor(`cluster_state:ok on port ${port}`, async () =>
        /cluster_state:ok/.test(await cli(port, "cluster", "info")),
      );
  } catch (e) {
    await stop();
    throw e;
  }
  return { ports: ports.slice(0, masters), url: `redis://127.0.0.1:${ports[0]}`, stop };
}

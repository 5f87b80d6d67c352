/**
 * A real TCP link to a real server (PostgreSQL) that holds every chunk the client sends for `delayMs` before
 * forwarding it: a migration through it takes long enough per batch that a test can kill the process between
 * batches. `setDelay(0)` makes it a plain link again.
 */
import { connect, createServer, type Socket } from "node:net";

export interface SlowLink {
  port: number;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function slowLink(targetPort: number, delayMs: number): Promise<SlowLink> {
  let delay = delayMs;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        (s === client ? upstream : client).destroy();
      });
    }
    // timers of one delay fire in the order they were set: the bytes keep their order
    client.on("data", (d: Buffer) => (delay > 0 ? setTimeout(() => upstream.write(d), delay) : upstream.write(d)));
    upstream.on("data", (d: Buffer) => client.write(d));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as { port: number }).port,
    setDelay: (ms) => void (delay = ms),
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

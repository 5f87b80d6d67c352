/**
 * A real TCP proxy on 127.0.0.1 in front of a real server (Redis, PostgreSQL), for "server gone mid-run" tests:
 * it forwards bytes both ways and, once `cutAfterBytes` bytes have gone client → server, destroys every connection
 * and stops listening — what a client sees when the server dies or the network drops. With `stall`, it keeps every
 * connection open instead and forwards nothing more either way — what a client sees when the server hangs.
 */
import { createServer, connect, type Socket } from "node:net";

export interface Proxy {
  port: number;
  /** bytes forwarded client → server so far */
  forwarded(): number;
  /** whether the cut has happened */
  cut(): boolean;
  close(): Promise<void>;
}

export async function startProxy(
  targetPort: number,
  cutAfterBytes: number,
  opts: { stall?: boolean } = {},
): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let sent = 0;
  let isCut = false;
  const server = createServer((client) => {
    if (isCut && !opts.stall) return void client.destroy();
    const upstream = connect(targetPort, "127.0.0.1");
    sockets.add(client);
    sockets.add(upstream);
    const cutNow = () => {
      if (isCut) return;
      isCut = true;
      if (opts.stall) return;
      for (const s of sockets) s.destroy();
      server.close();
    };
    client.on("data", (d: Buffer) => {
      if (isCut && opts.stall) return;
      sent += d.length;
      upstream.write(d);
      if (sent >= cutAfterBytes) cutNow();
    });
    upstream.on("data", (d: Buffer) => {
      if (!(isCut && opts.stall)) client.write(d);
    });
    for (const s of [client, upstream]) {
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        (s === client ? upstream : client).destroy();
      });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    forwarded: () => sent,
    cut: () => isCut,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        if (!server.listening) return r();
        server.close(() => r());
      }),
  };
}

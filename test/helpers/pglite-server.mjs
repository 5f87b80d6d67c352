// A throwaway PostgreSQL with pgvector: PGlite (PostgreSQL compiled to WASM, in memory) with its pgvector extension,
// served over the wire protocol by @electric-sql/pglite-socket on a free 127.0.0.1 port. Started by
// test/helpers/pglite-server.ts; prints {"port": N} on stdout once it listens, stops on SIGTERM. `maxConnections`
// (argv[2], default 8): PGlite is one session, the socket server multiplexes that many client connections onto it
// (a client's transaction runs alone until it ends).
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

const db = await PGlite.create({ extensions: { vector } });
await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: Number(process.argv[2] ?? 8) });
await server.start();
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
const stop = async () => {
  await server.stop();
  await db.close();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

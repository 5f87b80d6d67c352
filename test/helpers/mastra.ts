/**
 * Mastra stores written and read by the real packages (test/peers/scripts/mastra-write.mjs, mastra-read.mjs under
 * Node 22): the spec of a store with several resources, tool calls, reasoning and working memory, and the shape of
 * what Mastra's own APIs answer (listThreads, recall, getWorkingMemory).
 */
import Database from "better-sqlite3";
import { runPeer } from "./peers.js";

export type MastraPeerStore = { kind: "libsql"; file: string } | { kind: "pg"; url: string; schema: string };

/** What Mastra's own APIs answer for one thread (test/peers/scripts/mastra-common.mjs readBack). */
export interface MastraThreadBack {
  id: string;
  resourceId: string;
  title: string | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  workingMemory: string | null;
  messages: Array<{
    id: string;
    role: string;
    type: string | null;
    createdAt: string;
    content: Record<string, unknown>;
  }>;
}

/** Three resources, four threads, tool calls (one and two per step), reasoning, working memory for two resources. */
export const MASTRA_SPEC = {
  threads: [
    {
      id: "trip-1",
      resource: "alice",
      title: "Trip planning",
      metadata: { topic: "travel", priority: 2 },
      turns: [
        { user: "Weather in Paris and Rome?", tools: ["Paris", "Rome"], reasoning: "Two cities: two calls." },
        { user: "Thanks! Any advice?", reasoning: "Be brief.", answer: "Pack sunglasses." },
      ],
    },
    { id: "chat-2", resource: "alice", turns: [{ user: "hi" }, { user: "Weather in Oslo?", tool: "Oslo" }] },
    { id: "bob-1", resource: "bob", title: "Bob's thread", turns: [{ user: "Weather in Lima?", tool: "Lima" }] },
    { id: "carol-1", resource: "carol", turns: [{ user: "hello", answer: "Hello, Carol." }] },
  ],
  workingMemory: { alice: "# Alice\n- Likes: sunny places", bob: "# Bob\n- City: Lima" },
};

/** Write a store with the real packages; their own read-back of it. */
export async function writeMastra(store: MastraPeerStore, spec: object = MASTRA_SPEC): Promise<MastraThreadBack[]> {
  const out = (await runPeer<MastraThreadBack[]>("scripts/mastra-write.mjs", { ...spec, store })).out;
  // LibSQL leaves what it wrote in the database's -wal when the peer exits; whether its own checkpoint moved it into
  // the main file by then depends on timing. Checkpoint it here, so that the file alone is the whole store and a test
  // that copies the file copies a Mastra store every time.
  if (store.kind === "libsql") {
    const db = new Database(store.file);
    try {
      db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      db.close();
    }
  }
  return out;
}

/** Read a store with the real packages. */
export async function readMastra(store: MastraPeerStore): Promise<MastraThreadBack[]> {
  return (await runPeer<MastraThreadBack[]>("scripts/mastra-read.mjs", { store })).out;
}

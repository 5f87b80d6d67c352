/**
 * A LangGraph PostgreSQL store (Python or JS `PostgresSaver`, LANGGRAPH.md §1.2-1.3) in `?schema=` (default
 * `public`): `checkpoints` (JSONB), `checkpoint_blobs`, `checkpoint_writes` (+ `task_path` after Python migration 9),
 * `checkpoint_migrations`. One factory, `langGraphPostgres`, returns one object that is the reader, the row-level
 * store (migrate, convert, prune) and the stats source.
 *
 * Connections: reading (the reader, stats) goes through one connection with `default_transaction_read_only=on`;
 * the row-level store through a pool of 4 (batches read on two connections at once, writes in transactions). Each is
 * opened when first needed; a store opened to read opens the read-only one at once, one opened to write the pool.
 * Every listing pages by key (no server-side state), so memory is bounded by the page. `setup` runs the library's own
 * migrations (Python 0-9, JS 0-4) the way its setup() does. Writes split channel values into `checkpoint_blobs` as
 * the target library's put does (rows.ts); reads reassemble them.
 *
 * The modules, by concern (as LangGraph JS's checkpoint-postgres splits its own): connect.ts (connections, schema,
 * migrations), read.ts (the reader and DeltaChannel chains), rows.ts (the row-level store), write.ts (staging, COPY,
 * upsert), verify.ts (read-back), prune.ts (prune, vacuum), stats.ts.
 */
import type pg from "pg";
import { inputError } from "../../../base/errors.js";
import type { AesKey } from "../../../formats/langgraph/aes-key.js";
import type { LgStoreInfo } from "../../../formats/langgraph/types.js";
import { withDeltaChannels } from "../delta.js";
import type { LangGraphStore } from "../shared.js";
import { ident } from "../sql.js";
import { type Client, connections, type PgPlace } from "./connect.js";
import { readerOf } from "./read.js";
import { pgAtomically, rowStoreOf } from "./rows.js";
import { statsOf } from "./stats.js";

export { connectPool, connectReadOnly, inspectPgSchema, type PgPlace } from "./connect.js";

/** A PostgreSQL LangGraph store, with the pool of its row-level store (to look at its sessions' settings). */
export interface PgLangGraphStore extends LangGraphStore {
  rowPool(): Promise<pg.Pool>;
}

/**
 * The LangGraph store over connections already opened (`opened`) or opened when needed; `aesKey` opens its encrypted
 * rows (and seals those a migration writes to it).
 */
export function langGraphPostgres(
  place: PgPlace,
  info: LgStoreInfo,
  opened: { ro?: Client; rw?: pg.Pool } = {},
  aesKey?: AesKey,
): PgLangGraphStore {
  if (info.shallow)
    throw inputError(
      "langgraph-shallow",
      `a ShallowPostgresSaver layout (Python langgraph-checkpoint-postgres' deprecated saver: one checkpoint per thread and namespace, no checkpoint_id column): ckpt reads the PostgresSaver layout only`,
      { file: place.uri },
    );
  const conns = connections(place, opened);
  const S = `${ident(place.schema)}.`;
  const reader = withDeltaChannels(readerOf(conns, S, info, place.uri, aesKey));
  const rows = rowStoreOf(conns, S, place, aesKey);
  const stats = statsOf(conns, S, place.uri);
  return {
    ...reader,
    ...rows,
    storedMethod: stats.storedMethod,
    tables: stats.tables,
    rows: stats.rows,
    uri: place.uri,
    rowPool: conns.rw,
    atomically: (lock, f) => pgAtomically(conns, S, place, aesKey, lock, f),
    async close() {
      await stats.end();
      await reader.close();
      await conns.close();
    },
  };
}

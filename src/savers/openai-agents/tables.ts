/**
 * The table names of the Python Agents SDK's SQLiteSession: `agent_sessions` and `agent_messages` unless the session
 * was constructed with others (`sessions_table=`, `messages_table=`), which a store URI names the same way. No driver
 * here: sql-layouts.ts asks for the names before anything is opened.
 */
import { usageError } from "../../base/errors.js";

export const SESSION_TABLES = { sessions: "agent_sessions", messages: "agent_messages" } as const;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The table names a URI asks for (`?sessions_table=&messages_table=`), else the defaults. */
export function sessionTables(params: URLSearchParams): { sessions: string; messages: string } {
  const out = {
    sessions: params.get("sessions_table") ?? SESSION_TABLES.sessions,
    messages: params.get("messages_table") ?? SESSION_TABLES.messages,
  };
  for (const [k, v] of Object.entries(out))
    if (!IDENT.test(v))
      throw usageError(
        `${k}_table=${v}: expected a bare SQL table name (letters, digits, _), as SQLiteSession interpolates it`,
      );
  return out;
}

/**
 * The Chat SDK template's tables (vercel/ai-chatbot, lib/db) for tests: the PostgreSQL DDL as the template's Drizzle
 * migrations 0000-0008 leave it, the same tables with SQLite types (the template ships PostgreSQL only), and filling
 * them with rows ([table, columns]; JSON columns given as values).
 */
import Database from "better-sqlite3";

export type Row = [string, Record<string, unknown>];

/** The template's tables as its migrations 0000-0008 leave them (PostgreSQL), in schema `s`. */
export const pgDdl = (s: string) => `
CREATE SCHEMA "${s}";
CREATE TABLE "${s}"."User" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL, "email" varchar(64) NOT NULL, "password" varchar(64));
CREATE TABLE "${s}"."Chat" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL, "createdAt" timestamp NOT NULL, "userId" uuid NOT NULL,
  "title" text NOT NULL, "visibility" varchar DEFAULT 'private' NOT NULL);
ALTER TABLE "${s}"."Chat" ADD CONSTRAINT "Chat_userId_User_id_fk" FOREIGN KEY ("userId") REFERENCES "${s}"."User"("id") ON DELETE no action ON UPDATE no action;
CREATE TABLE "${s}"."Document" ("id" uuid DEFAULT gen_random_uuid() NOT NULL, "createdAt" timestamp NOT NULL, "title" text NOT NULL, "content" text,
  "userId" uuid NOT NULL, "text" varchar DEFAULT 'text' NOT NULL, CONSTRAINT "Document_id_createdAt_pk" PRIMARY KEY("id","createdAt"));
CREATE TABLE "${s}"."Suggestion" ("id" uuid DEFAULT gen_random_uuid() NOT NULL, "documentId" uuid NOT NULL, "documentCreatedAt" timestamp NOT NULL,
  "originalText" text NOT NULL, "suggestedText" text NOT NULL, "description" text, "isResolved" boolean DEFAULT false NOT NULL,
  "userId" uuid NOT NULL, "createdAt" timestamp NOT NULL, CONSTRAINT "Suggestion_id_pk" PRIMARY KEY("id"));
CREATE TABLE "${s}"."Message" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL, "chatId" uuid NOT NULL, "role" varchar NOT NULL,
  "content" json NOT NULL, "createdAt" timestamp NOT NULL);
ALTER TABLE "${s}"."Message" ADD CONSTRAINT "Message_chatId_Chat_id_fk" FOREIGN KEY ("chatId") REFERENCES "${s}"."Chat"("id");
CREATE TABLE "${s}"."Vote" ("chatId" uuid NOT NULL, "messageId" uuid NOT NULL, "isUpvoted" boolean NOT NULL,
  CONSTRAINT "Vote_chatId_messageId_pk" PRIMARY KEY("chatId","messageId"));
CREATE TABLE "${s}"."Message_v2" ("id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL, "chatId" uuid NOT NULL, "role" varchar NOT NULL,
  "parts" json NOT NULL, "attachments" json NOT NULL, "createdAt" timestamp NOT NULL);
ALTER TABLE "${s}"."Message_v2" ADD CONSTRAINT "Message_v2_chatId_Chat_id_fk" FOREIGN KEY ("chatId") REFERENCES "${s}"."Chat"("id");
CREATE TABLE "${s}"."Vote_v2" ("chatId" uuid NOT NULL, "messageId" uuid NOT NULL, "isUpvoted" boolean NOT NULL,
  CONSTRAINT "Vote_v2_chatId_messageId_pk" PRIMARY KEY("chatId","messageId"));
CREATE TABLE "${s}"."Stream" ("id" uuid DEFAULT gen_random_uuid() NOT NULL, "chatId" uuid NOT NULL, "createdAt" timestamp NOT NULL,
  CONSTRAINT "Stream_id_pk" PRIMARY KEY("id"));`;

/** The same tables with SQLite types (JSON as text, uuids and timestamps as text). */
export const SQLITE_DDL = `
CREATE TABLE "User" ("id" text PRIMARY KEY NOT NULL, "email" text NOT NULL, "password" text);
CREATE TABLE "Chat" ("id" text PRIMARY KEY NOT NULL, "createdAt" text NOT NULL, "userId" text NOT NULL REFERENCES "User"("id"),
  "title" text NOT NULL, "visibility" text DEFAULT 'private' NOT NULL);
CREATE TABLE "Message" ("id" text PRIMARY KEY NOT NULL, "chatId" text NOT NULL REFERENCES "Chat"("id"), "role" text NOT NULL,
  "content" text NOT NULL, "createdAt" text NOT NULL);
CREATE TABLE "Message_v2" ("id" text PRIMARY KEY NOT NULL, "chatId" text NOT NULL REFERENCES "Chat"("id"), "role" text NOT NULL,
  "parts" text NOT NULL, "attachments" text NOT NULL, "createdAt" text NOT NULL);
CREATE TABLE "Vote_v2" ("chatId" text NOT NULL, "messageId" text NOT NULL, "isUpvoted" integer NOT NULL, PRIMARY KEY("chatId","messageId"));`;

export const JSON_COLUMNS = new Set(["content", "parts", "attachments"]);

/** An SQLite file with the template's tables and `rows`. */
export function fillSqliteRows(file: string, rows: Row[]): void {
  const db = new Database(file);
  db.exec(SQLITE_DDL);
  db.transaction(() => {
    for (const [t, r] of rows) {
      const cols = Object.keys(r);
      db.prepare(
        `INSERT INTO "${t}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
      ).run(...cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(r[c]) : r[c])));
    }
  })();
  db.close();
}

/** A PostgreSQL schema `s` (created) with the template's tables and `rows`. */
export async function fillPgRows(
  query: (sql: string, args?: unknown[]) => Promise<unknown>,
  s: string,
  rows: Row[],
): Promise<void> {
  await query(pgDdl(s));
  for (const [t, r] of rows) {
    const cols = Object.keys(r);
    await query(
      `INSERT INTO "${s}"."${t}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(", ")})`,
      cols.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(r[c]) : r[c])),
    );
  }
}

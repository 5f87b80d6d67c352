/**
 * The tables of Vercel's Chat SDK template (vercel/ai-chatbot, `lib/db/schema.ts`) that hold its chats, as one store
 * type whatever the backend: `User` (whom `Chat.userId` names), `Chat` (id, title, userId, visibility, createdAt),
 * `Message` — the deprecated table of AI SDK 4 days, one row per model message (`content` JSON: a string or an array
 * of content parts; tool results in `tool` rows) — and `Message_v2`, one row per UI message (`parts` and
 * `attachments` JSON) as the template writes them today. Votes, documents and streams are not chats and are neither
 * read nor written.
 *
 * Rows come as stored: JSON columns decoded (a value that does not decode is kept as its text and named in
 * `unreadable`, never dropped), timestamps as ISO 8601 UTC text (the template's `timestamp` columns hold UTC).
 */

export const AI_CHATBOT_TABLES = {
  users: "User",
  chats: "Chat",
  messagesV1: "Message",
  messagesV2: "Message_v2",
} as const;

/** The two message tables. */
export type MessageTable = "Message" | "Message_v2";

export interface Unreadable {
  column: string;
  reason: string;
}

export interface ChatRow {
  id: string;
  createdAt: string;
  title: string;
  userId: string;
  visibility: string;
}

export interface UserRow {
  id: string;
  email: string;
  password: string | null;
}

/** A `Message` row: one model message of AI SDK 4 (`content`: a string or content parts). */
export interface MessageV1Row {
  id: string;
  chatId: string;
  role: string;
  content: unknown;
  createdAt: string;
  unreadable?: Unreadable[];
}

/** A `Message_v2` row: one UI message (`parts`, `attachments`). */
export interface MessageV2Row {
  id: string;
  chatId: string;
  role: string;
  parts: unknown;
  attachments: unknown;
  createdAt: string;
  unreadable?: Unreadable[];
}

/** `ls` row of a chat. */
export interface ChatSummary extends ChatRow {
  /** the user's email, null when no `User` row has the chat's userId */
  email: string | null;
  /** rows in `Message` (0 when the table does not exist) and in `Message_v2` */
  messages: number;
  messagesV2: number;
}

export interface AiChatbotCounts {
  chats: number;
  users: number;
  messages: number;
  messagesV2: number;
}

/** A batch a migration writes in one transaction: users and chats (kept when present) and `Message_v2` rows. */
export interface AiChatbotBatch {
  users: UserRow[];
  chats: ChatRow[];
  messages: Array<Omit<MessageV2Row, "unreadable">>;
}

export interface AiChatbotStore {
  readonly layout: "ai-chatbot";
  readonly kind: "sqlite" | "postgres";
  /** the URI with any password removed */
  readonly uri: string;
  /** which of the four tables exist */
  tables(): Promise<Set<string>>;
  /** create the four tables as the template's migrations do (an existing table is kept) */
  setup(): Promise<void>;
  /** chats by id (after `after`, at most `limit`), with their message counts */
  chats(o?: { after?: string; limit?: number }): AsyncIterable<ChatSummary>;
  chat(id: string): Promise<ChatRow | undefined>;
  user(id: string): Promise<UserRow | undefined>;
  /** a chat's rows of one table, as the template reads them: by chatId, ordered by createdAt (ties: as stored) */
  messagesV1(chatId: string): Promise<MessageV1Row[]>;
  messagesV2(chatId: string): Promise<MessageV2Row[]>;
  counts(): Promise<AiChatbotCounts>;
  /** ids among `ids` the table holds */
  existing(table: "User" | "Chat" | MessageTable, ids: string[]): Promise<Set<string>>;
  /** chat ids among `chatIds` that have rows in `Message_v2` */
  chatsWithV2(chatIds: string[]): Promise<Set<string>>;
  /** write a batch in one transaction (users and chats that exist are kept; messages must not exist) */
  write(batch: AiChatbotBatch): Promise<void>;
  /**
   * `ckpt delete`: the chat's rows in Vote, Vote_v2, Message, Message_v2, Stream (those the store has) and its Chat
   * row, counted (dry run) or deleted in one transaction; null: nothing names the chat.
   */
  erase(
    chatId: string,
    dryRun: boolean,
  ): Promise<{ tables: Array<{ table: string; rows: number }>; notes?: string[] } | null>;
  /**
   * `ckpt delete --user`: the user's chats with every row of them (as `erase`), their documents and suggestions (and
   * the suggestions on their documents), and the User row, counted or deleted in one transaction; null: nothing names
   * the user. `threads`: the chats.
   */
  eraseUser(
    userId: string,
    dryRun: boolean,
  ): Promise<{ threads: string[]; tables: Array<{ table: string; rows: number }>; notes?: string[] } | null>;
  /** `ckpt prune --idle-for`: each chat's last activity (ms): the newest of its own time and its messages' */
  activity(chatIds: string[]): Promise<Map<string, number>>;
  /** `ckpt prune --vacuum`: VACUUM of the file (WAL checkpointed) or the template's tables; `dryRun`: measured only */
  vacuum(o: { dryRun: boolean }): Promise<import("../langgraph/shared.js").VacuumReport>;
  close(): Promise<void>;
}

export const isAiChatbotStore = (s: unknown): s is AiChatbotStore =>
  (s as { layout?: string } | null)?.layout === "ai-chatbot";

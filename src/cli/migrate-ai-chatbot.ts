/**
 * The Chat SDK template route of `ckpt migrate` (the engine is picked from the opened stores, cli/migrate.ts): a
 * Chat SDK template database into `Message_v2` of a new store or schema (`?layout=ai-chatbot` on a new target), or
 * of the same database (`--to` the same URI: only chats without Message_v2 rows are written; `Message` is never
 * changed). The engine is core/ai-chatbot-migrate.ts. A Chat SDK store read as documents (`--to` a ckpt store or
 * folder, `--to-format`) goes the document way (core/migrate.ts).
 */
import { usageError } from "../base/errors.js";
import type { ChatbotMigrateSummary } from "../engines/ai-chatbot/migrate.js";
import type { ConflictPolicy, Journal, MigrateProgress } from "../core/migrate/types.js";
import type { AiChatbotStore } from "../savers/ai-chatbot/types.js";

export interface ChatbotMigrateArgs {
  allowLossy: boolean;
  dryRun: boolean;
  onConflict: ConflictPolicy | "default";
  verify: boolean;
  strict: boolean;
  batchSize: number;
}

/** A Chat SDK template database's chats into a Chat SDK template store's Message_v2. */
export async function migrateChatbotToChatbot(
  source: AiChatbotStore,
  target: AiChatbotStore,
  args: ChatbotMigrateArgs,
  hooks: { journal?: Journal; onProgress: (p: MigrateProgress) => void },
): Promise<ChatbotMigrateSummary> {
  const { migrateChatbot } = await import("../engines/ai-chatbot/migrate.js");
  return migrateChatbot(source, target, {
    batchSize: args.batchSize,
    dryRun: args.dryRun,
    allowLossy: args.allowLossy,
    verify: args.verify,
    strict: args.strict,
    journal: hooks.journal,
    onProgress: hooks.onProgress,
  });
}

/** The options a Chat SDK route cannot honour, refused with the reason (exit 2) before anything is written. */
export function refuseOnChatbot(
  args: {
    jobs?: number;
    toNamespace?: string;
    toFormat?: string;
    aiSdkVersion?: string;
    toLibrary?: string;
    thread?: string[];
    onConflict: string;
  },
  layouts: { source: string; target: string },
  to: string,
): void {
  if (layouts.target === "ai-chatbot") {
    if (layouts.source !== "ai-chatbot")
      throw usageError(
        `--to ${to}: a Chat SDK template store takes the chats of another Chat SDK template database (its Message and Message_v2 tables)`,
      );
    if (args.jobs !== undefined && args.jobs > 1)
      throw usageError(
        `--jobs ${args.jobs}: a Chat SDK target (${to}) takes one writer (leave --jobs out, or --jobs 1)`,
      );
    if (args.toNamespace !== undefined)
      throw usageError(`--to-namespace ${args.toNamespace}: a Chat SDK target (${to}) has no namespaces`);
    if (args.toFormat !== undefined && args.toFormat !== "ai-sdk")
      throw usageError(
        `--to-format ${args.toFormat}: a Chat SDK target (${to}) holds Message_v2 rows (the AI SDK major the template pins)`,
      );
    if (args.aiSdkVersion !== undefined && args.aiSdkVersion !== "6")
      throw usageError(
        `--to-format ai-sdk@${args.aiSdkVersion}: a Chat SDK target (${to}) holds Message_v2 rows of AI SDK 6, the major the template pins`,
      );
    if (args.onConflict !== "default" && args.onConflict !== "skip")
      throw usageError(
        `--on-conflict ${args.onConflict}: a Chat SDK target's rows are never replaced; a chat whose Message_v2 rows differ is reported and left alone`,
      );
  }
  if (args.toLibrary !== undefined)
    throw usageError(`--to-library ${args.toLibrary}: applies to LangGraph targets, not to Chat SDK stores`);
  if (args.thread?.length)
    throw usageError("--thread: picks threads of LangGraph routes; a Chat SDK migration moves every chat");
  if (layouts.source === "ai-chatbot" && (layouts.target === "langgraph" || layouts.target === "mastra"))
    throw usageError(
      `--to ${to}: a Chat SDK template database goes to a Chat SDK template store, or as documents to a ckpt store or folder`,
    );
}

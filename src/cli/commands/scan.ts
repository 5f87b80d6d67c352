/**
 * `ckpt scan <source…>`: the secrets and personal data in conversations — API keys and tokens (secretlint's
 * recommended rules and ckpt's own for what they lack), e-mail addresses, phone numbers, IP addresses, card numbers,
 * home-directory paths with a user name — one line per finding: the thread, the message (as `ckpt show` numbers it)
 * and where in it, the kind and rule, and the value masked. Every message, tool call, tool result and state key of
 * every thread named (a LangGraph thread's newest checkpoint unless `--all-checkpoints`).
 *
 * Exit: 0 clean, 1 something found, 2 usage, 3 or 4 when a source could not be read (named on stderr; the rest is
 * scanned all the same: a scan that could not read everything is never called clean).
 */
import type { Argv } from "yargs";
import { type CkptError, usageError } from "../../base/errors.js";
import { plural } from "../../base/plural.js";
import { printable } from "../../base/printable.js";
import type { Finding } from "../../core/scan/redact.js";
import type { CommandDef } from "../command.js";
import { conversationLabel } from "../conversations.js";
import type { CliIO } from "../io.js";

interface Args {
  sources: string[];
  kinds?: string[];
  json: boolean;
  allCheckpoints: boolean;
  namespace?: string;
  format?: string;
}

function findingLine(label: string, f: Finding): string {
  const at = f.message !== undefined ? `#${f.message} ${f.role} ${f.where}` : f.where;
  return `${printable(label)} ${printable(at)}: ${f.kind} (${f.rule}) ${printable(f.masked)}\n`;
}

export const scanCommand: CommandDef = {
  command: "scan <sources..>",
  describe:
    "List the secrets and personal data in conversations (keys, tokens, e-mails, phones, IPs, cards, home paths)",
  builder: (y: Argv) =>
    y
      .positional("sources", {
        type: "string",
        array: true,
        describe: "files, folders, globs, - , stores (every thread) or <store>#<thread>",
      })
      .option("kinds", {
        type: "string",
        array: true,
        describe: "only these kinds: secrets, email, phone, ip, card, path (comma-separated; default: all)",
      })
      .option("all-checkpoints", {
        type: "boolean",
        default: false,
        describe: "every checkpoint of a LangGraph thread (default: the newest)",
      })
      .option("json", { type: "boolean", default: false, describe: "one JSON object per finding (JSON Lines)" })
      .option("namespace", {
        type: "string",
        describe: "the namespace of a store that has them (default: every namespace)",
      })
      .option("format", { alias: "f", type: "string", describe: "input format of files (default: detected)" })
      .example("ckpt scan sqlite:./checkpoints.db", "every thread of a store")
      .example("ckpt scan ./chats/ --kinds secrets", "only API keys, tokens, private keys and passwords")
      .example("ckpt scan mastra.db --json > findings.jsonl", "as JSON Lines, for a tool"),
  run: async (args: Args, io: CliIO) => {
    const { parseKinds } = await import("../../core/scan/redact.js");
    const kinds = args.kinds?.length ? parseKinds(args.kinds) : parseKinds("all");
    if (typeof kinds === "string") throw usageError(`--kinds: ${kinds}`);
    const { scanCheckpoint } = await import("../../core/scan/places.js");
    const { readConversations } = await import("../conversations.js");
    let failed: CkptError | undefined;
    const byKind = new Map<string, number>();
    let total = 0;
    let skipped = 0;
    let threads = 0;
    let scanned = 0;
    for await (const r of readConversations(args.sources, io, {
      allCheckpoints: args.allCheckpoints,
      namespace: args.namespace,
      format: args.format,
      passedOver: () => void skipped++,
    })) {
      if (!r.ok) {
        failed ??= r.error;
        io.stderr.write(`ckpt scan: ${printable(r.error.format(), true)}\n`);
        continue;
      }
      scanned++;
      const c = r.value;
      const found = await scanCheckpoint(c.checkpoint, kinds);
      if (found.length === 0) continue;
      threads++;
      total += found.length;
      const label = conversationLabel(c);
      let out = "";
      for (const f of found) {
        byKind.set(f.kind, (byKind.get(f.kind) ?? 0) + 1);
        out += args.json
          ? `${JSON.stringify({ source: c.source, thread: c.threadId, ...(c.checkpointId ? { checkpoint: c.checkpointId } : {}), ...f })}\n`
          : findingLine(label, f);
      }
      io.stdout.write(out);
    }
    if (!args.json) {
      const kindsText = [...byKind].map(([k, n]) => `${k} ${n}`).join(", ");
      io.stdout.write(
        total
          ? `${plural(total, "finding")} in ${plural(threads, "conversation")} of ${scanned} scanned (${kindsText})\n`
          : `clean: nothing found in ${plural(scanned, "conversation")}\n`,
      );
    }
    if (skipped)
      io.stderr.write(`ckpt scan: ${plural(skipped, "file")} in the folders named not read: not conversations\n`);
    if (failed) return failed.exitCode;
    return total ? 1 : 0;
  },
};

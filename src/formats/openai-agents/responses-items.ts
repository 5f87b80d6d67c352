/**
 * The `openai-responses-items` format: a list of OpenAI Responses API input items (`ResponseInputItem[]`, snake_case)
 * as a JSON array — a Python Agents SDK session's items (`await session.get_items()`, the rows of its SQLiteSession:
 * savers/openai-agents/) and the `input` the JS SDK sends the Responses API. Checked against
 * schemas/formats/openai-agents/responses-items.json (derived from the installed `openai` package's declarations).
 * Items ⇄ canonical messages: ./responses.ts. A list has no thread id (the file name, or the session, stands for it),
 * no step and no state.
 */
import type { Checkpoint } from "../../generated/types.js";
import { inputError } from "../../base/errors.js";
import { parseJson, stringifyJson } from "../../base/json.js";
import type { FormatAdapter, SourceDoc } from "../types.js";
import { threadIdOfDoc } from "../rust-common.js";
import { isObj, type Obj } from "./items.js";
import { envelopeLoss } from "./session.js";
import { messagesToResponses, responsesToMessages } from "./responses.js";

/** Spellings only Responses API items have (the JS SDK's own items say callId, function_call_result, providerData). */
const SNAKE = /"(call_id|annotations|summary_text|image_url|function_call_output|encrypted_content)"/;

const assistants = (cp: Pick<Checkpoint, "messages">) => cp.messages.filter((m) => m.role === "assistant").length;
const asItems = (native: unknown[]): Obj[] => native.map((it) => (isObj(it) ? it : {}));

export const openaiResponsesItemsAdapter: FormatAdapter<Obj[]> = {
  name: "openai-responses-items",
  title:
    "OpenAI Responses API input items (ResponseInputItem[]: a Python Agents SDK session's items, a request's input)",
  extensions: [".json"],
  lossy: [
    "state, interrupt, createdAt / updatedAt",
    "threadId (the file name stands for it); step (read back as the number of assistant messages)",
    "per-message usage, model, provider, timestamps; tool results' error flag",
  ],
  schema: "formats/openai-agents/responses-items",
  detectNeeds: { first: "[" },
  detect(doc: SourceDoc) {
    const head = doc.text?.slice(0, 8192);
    if (head === undefined || !/^\s*\[/.test(head)) return { confidence: 0 };
    return SNAKE.test(head) ? { confidence: 0.95 } : { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a Responses API item list is a single JSON file", { file: doc.name });
    const v = parseJson(doc.text, { file: doc.name });
    if (!Array.isArray(v))
      throw inputError("not-an-array", "a Responses API item list is a JSON array of items", { file: doc.name });
    return v as Obj[];
  },
  toCanonical(native, doc) {
    const { messages } = responsesToMessages(asItems(native));
    return {
      schemaVersion: 1,
      threadId: threadIdOfDoc(doc),
      step: assistants({ messages }),
      messages,
      state: {},
      origin: {
        format: "openai-responses-items",
        ...(doc.threadId === undefined ? { threadIdFrom: "file-name" } : {}),
      },
    };
  },
  fromCanonical(cp, { lossy }) {
    envelopeLoss(cp, lossy, "a Responses API item list");
    if (cp.step !== assistants(cp))
      lossy.push({
        pointer: "/step",
        field: "step",
        reason: `an item list has no step counter (read back as the number of assistant messages): step ${cp.step} is dropped`,
      });
    return messagesToResponses(cp.messages, lossy);
  },
  messagePointers(native) {
    return responsesToMessages(asItems(native)).starts.map((i) => `/${i}`);
  },
  /** Compact JSON, as `json.dumps` lists are read back. */
  serialize: (native) => ({ text: stringifyJson(native) }),
};

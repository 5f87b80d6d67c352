/**
 * The `openai-agents-items` format: an OpenAI Agents SDK session's item list — the `AgentInputItem[]` a Session's
 * `getItems()` returns (MemorySession, a stored session's rows) and a run takes as input — as a JSON array. Each item
 * is read as the SDK's `protocol.ModelItem` reads it (schemas/formats/openai-agents/items.json, derived from the SDK).
 * Items ⇄ canonical messages: ./items.ts. A list has no thread id (the file name stands for it), no step and no state.
 */
import type { Checkpoint } from "../../generated/types.js";
import { inputError } from "../../base/errors.js";
import { parseJson, stringifyJson } from "../../base/json.js";
import { escapePtr } from "../../base/pointer.js";
import type { FormatAdapter, LossSink, SourceDoc } from "../types.js";
import { threadIdOfDoc } from "../rust-common.js";
import { EXT, isObj, itemsToMessages, messagesToItems, type Obj } from "./items.js";
import { listPrefix, listText, unwrapList, wrapperOf } from "../wrapped.js";

/** Items of the SDK's protocol: typed items, or messages of a role (no UI message `parts`). */
const fitsItems = (list: unknown[]) =>
  list.length > 0 &&
  list.every((it) => isObj(it) && !("parts" in it) && (typeof it.type === "string" || typeof it.role === "string"));

/** Items saved inside an object (`{sessionId, items}`): the items, remembered with their object. */
const unwrapItems = (v: unknown) => unwrapList(v, ["items", "messages"], fitsItems);

/** An item type only the Agents SDK writes, near the start of a JSON array. */
const ITEM_TYPE =
  /"type"\s*:\s*"(function_call|function_call_result|reasoning|output_text|input_text|computer_call|hosted_tool_call|shell_call|apply_patch_call)"/;
const MESSAGE_ITEM = /"type"\s*:\s*"message"\s*,\s*"role"|"role"\s*:\s*"[a-z]+"\s*,\s*"type"\s*:\s*"message"/;

/** What a conversion into a list drops of the checkpoint around the messages. */
export function envelopeLoss(cp: Checkpoint, lossy: LossSink, what: string): void {
  for (const [k, v] of Object.entries(cp.state ?? {})) {
    const empty = v == null || (Array.isArray(v) && v.length === 0) || (isObj(v) && Object.keys(v).length === 0);
    if (!empty)
      lossy.push({ pointer: `/state/${escapePtr(k)}`, field: `state.${k}`, reason: `${what} has no state: dropped` });
  }
  if (cp.interrupt !== undefined)
    lossy.push({ pointer: "/interrupt", field: "interrupt", reason: `${what} cannot record pending approvals` });
  for (const k of ["createdAt", "updatedAt"] as const)
    if (cp[k] !== undefined) lossy.push({ pointer: `/${k}`, field: k, reason: `${what} has no ${k}` });
  if (cp.origin?.threadIdFrom !== "file-name")
    lossy.push({
      pointer: "/threadId",
      field: "threadId",
      reason: `${what} has no thread id (the file name stands for it): '${cp.threadId}' is dropped`,
    });
  for (const k of Object.keys(cp.ext ?? {}))
    if (k !== EXT)
      lossy.push({ pointer: `/ext/${escapePtr(k)}`, field: k, reason: `${what} cannot carry ${k}-specific data` });
}

const assistants = (cp: Pick<Checkpoint, "messages">) => cp.messages.filter((m) => m.role === "assistant").length;

export const openaiAgentsItemsAdapter: FormatAdapter<Obj[]> = {
  name: "openai-agents-items",
  title: "OpenAI Agents SDK session items (AgentInputItem[]: Session.getItems(), a run's input)",
  extensions: [".json"],
  lossy: [
    "state, interrupt, createdAt / updatedAt",
    "threadId (the file name stands for it); step (read back as the number of assistant messages)",
    "per-message usage, model, provider, timestamps; tool results' error flag",
    "thinking blocks outside assistant messages; tool calls outside assistant messages",
  ],
  schema: "formats/openai-agents/items",
  detectNeeds: { first: ["[", "{"] },
  detect(doc: SourceDoc) {
    const head = doc.text?.slice(0, 8192);
    if (head === undefined) return { confidence: 0 };
    if (/^\s*\[/.test(head))
      return ITEM_TYPE.test(head) || MESSAGE_ITEM.test(head) ? { confidence: 0.9 } : { confidence: 0 };
    // a session saved with its id: {"sessionId": …, "items": [{"type": …} | {"role": …}]}
    if (!/^\s*\{/.test(head) || !/"(items|messages)"\s*:\s*\[\s*\{/.test(head)) return { confidence: 0 };
    let v: unknown;
    try {
      v = parseJson(doc.text!, { file: doc.name });
    } catch {
      return { confidence: 0 };
    }
    const list = unwrapItems(v);
    return list ? { confidence: 0.85, parsed: list } : { confidence: 0 };
  },
  parse(doc: SourceDoc, parsed?: unknown) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "an Agents SDK item list is a single JSON file", { file: doc.name });
    const v = parsed !== undefined ? parsed : parseJson(doc.text, { file: doc.name });
    const list = Array.isArray(v) ? v : unwrapItems(v);
    if (list === undefined)
      throw inputError(
        "not-an-array",
        "an Agents SDK item list is a JSON array of items (or an object holding one as 'items')",
        { file: doc.name },
      );
    return list as Obj[];
  },
  pointerPrefix: (native) => listPrefix(native),
  toCanonical(native, doc) {
    const { messages } = itemsToMessages(native.map((item) => ({ item: isObj(item) ? item : {} })));
    const savedId = wrapperOf(native)?.id;
    const named = doc.threadId !== undefined || savedId !== undefined;
    return {
      schemaVersion: 1,
      threadId: doc.threadId ?? savedId ?? threadIdOfDoc(doc),
      step: assistants({ messages }),
      messages,
      state: {},
      origin: { format: "openai-agents-items", ...(named ? {} : { threadIdFrom: "file-name" as const }) },
    };
  },
  fromCanonical(cp, { lossy }) {
    envelopeLoss(cp, lossy, "an Agents SDK item list");
    if (cp.step !== assistants(cp))
      lossy.push({
        pointer: "/step",
        field: "step",
        reason: `an item list has no step counter (read back as the number of assistant messages): step ${cp.step} is dropped`,
      });
    return messagesToItems(cp.messages, lossy);
  },
  messagePointers(native) {
    const { starts } = itemsToMessages(native.map((item) => ({ item: isObj(item) ? item : {} })));
    return starts.map((i) => `/${i}`);
  },
  /** `JSON.stringify(await session.getItems())`: compact. */
  serialize: (native) => ({ text: wrapperOf(native) ? listText(native, 0) : stringifyJson(native) }),
};

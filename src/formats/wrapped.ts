/**
 * Message lists saved inside an object — `{id, messages}` (an AI SDK chat as apps save it: `saveChat({id,
 * messages})`), `{sessionId, items}` (a session's items with its id) — read as the list they hold. The list is the
 * native value (formats/ai-sdk.ts, formats/openai-agents/session.ts); the object around it is remembered, so that
 * pointers into the list are told as pointers into the file (`pointerPrefix`: `/messages`), the object's id is the
 * thread id, and the list written back as it was read goes back into its object.
 */
import { stringifyJson } from "../base/json.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export interface Wrapper {
  /** the key holding the list */
  key: string;
  /** the object the list was read from */
  object: Obj;
  /** its id (`id`, `chatId`, `sessionId`, `threadId`), when a string */
  id?: string;
}

const WRAPPERS = new WeakMap<object, Wrapper>();

/** Keys such an object may hold besides the list: ids, times, a title, an owner, metadata. */
const ENVELOPE = new Set([
  "id",
  "chatId",
  "sessionId",
  "threadId",
  "conversationId",
  "title",
  "name",
  "createdAt",
  "updatedAt",
  "userId",
  "resourceId",
  "visibility",
  "metadata",
  "model",
  "version",
]);
const ID_KEYS = ["id", "chatId", "sessionId", "threadId", "conversationId"];

/**
 * The list an object holds under one of `keys` when the object is only an envelope around it (its other keys are
 * ids, times, a title…) and `fits` says the list is one of the format's; the list, remembered with its object.
 */
export function unwrapList(
  v: unknown,
  keys: readonly string[],
  fits: (list: unknown[]) => boolean,
  /** any object holding such a list (the format was named: the user says it is one), not only an envelope */
  anyObject = false,
): unknown[] | undefined {
  if (!isObj(v)) return undefined;
  const key = keys.find((k) => Array.isArray(v[k]));
  if (key === undefined) return undefined;
  if (!anyObject && !Object.keys(v).every((k) => k === key || ENVELOPE.has(k))) return undefined;
  const list = v[key] as unknown[];
  if (!fits(list)) return undefined;
  const idKey = ID_KEYS.find((k) => typeof v[k] === "string");
  WRAPPERS.set(list, { key, object: v, ...(idKey ? { id: v[idKey] as string } : {}) });
  return list;
}

/** The object a list was read from, if it was. */
export const wrapperOf = (list: unknown): Wrapper | undefined =>
  typeof list === "object" && list !== null ? WRAPPERS.get(list) : undefined;

/** Where the list is in its file: `/<key>`, or "" for a bare list. */
export const listPrefix = (list: unknown): string => {
  const w = wrapperOf(list);
  return w ? `/${w.key.replace(/~/g, "~0").replace(/\//g, "~1")}` : "";
};

/** The file text of a list: inside its object again when it was read from one. */
export function listText(list: unknown[], indent = 2): string {
  const w = wrapperOf(list);
  return stringifyJson(w ? { ...w.object, [w.key]: list } : list, indent);
}

/**
 * AI SDK UI messages in one shape for every major: the "view" the `ai-sdk` adapter converts to and from canonical
 * messages. A view message is a v5+ UIMessage (`{id, role, metadata?, parts}` with `text`, `reasoning`, `file`,
 * `source-url`, `tool-<name>`/`dynamic-tool` parts in their states, `step-start`, `data-*`, …); AI SDK 4 messages
 * are read into it and written from it by ai-sdk-v4.ts. Which fields each major's parts know (for a migration to
 * an older major, which would drop the others on load) is here too.
 */
export type Obj = Record<string, unknown>;
export type AiSdkMajor = "4" | "5" | "6" | "7";
export const AI_SDK_MAJORS: readonly AiSdkMajor[] = ["4", "5", "6", "7"];

export interface ViewMessage {
  id: string;
  role: string;
  metadata?: unknown;
  parts: Obj[];
  /** the message's other keys (zod objects are not strict: an app's own fields), in their order */
  extra?: Obj;
}

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export const isToolPart = (p: Obj): boolean =>
  typeof p.type === "string" && (p.type.startsWith("tool-") || p.type === "dynamic-tool");

/** The tool name of a tool part (`tool-<name>`, or a dynamic-tool's toolName). */
export const toolNameOf = (p: Obj): string =>
  p.type === "dynamic-tool" ? String(p.toolName) : String(p.type).slice("tool-".length);

/** Part types each major's uiMessagesSchema knows by name (besides tool-*, data-* and dynamic-tool). */
const STATIC_TYPES: Record<AiSdkMajor, readonly string[]> = {
  "4": [],
  "5": ["text", "reasoning", "source-url", "source-document", "file", "step-start"],
  "6": ["text", "reasoning", "source-url", "source-document", "file", "step-start"],
  "7": [
    "text",
    "reasoning",
    "custom",
    "source-url",
    "source-document",
    "file",
    "reasoning-file",
    "steering-message",
    "step-start",
  ],
};

/** Whether `major`'s validator knows a part of this type. */
export function knowsPartType(major: AiSdkMajor, type: string): boolean {
  return (
    type.startsWith("tool-") ||
    type.startsWith("data-") ||
    type === "dynamic-tool" ||
    STATIC_TYPES[major].includes(type)
  );
}

/** Fields a major added to a part type, by the major that added them (an older major's validator drops them). */
const ADDED_FIELDS: Array<{ major: AiSdkMajor; types: "tool" | string; fields: readonly string[] }> = [
  { major: "6", types: "tool", fields: ["toolMetadata", "inputEncoding", "resultProviderMetadata"] },
  { major: "7", types: "tool", fields: ["title"] },
  { major: "7", types: "text", fields: ["citations"] },
  { major: "7", types: "file", fields: ["providerReference"] },
];
const ADDED_APPROVAL_FIELDS: Array<{ major: AiSdkMajor; fields: readonly string[] }> = [
  { major: "6", fields: ["descriptor", "signature", "inputSchemaInput"] },
  { major: "7", fields: ["requestReason", "isAutomatic"] },
];

/**
 * What of a part an older `major` does not hold: the fields its validator would drop (returned as names, the part
 * copied without them), or the whole part (`drop`) when its type or state is unknown there.
 */
export function partForMajor(p: Obj, major: AiSdkMajor): { part: Obj; lost: string[]; drop?: string } {
  const type = String(p.type);
  if (!knowsPartType(major, type)) return { part: p, lost: [], drop: `AI SDK ${major} has no '${type}' parts` };
  if (major === "5" && type === "dynamic-tool" && String(p.state).startsWith("approval-"))
    return { part: p, lost: [], drop: `AI SDK 5 dynamic-tool parts have no '${String(p.state)}' state` };
  if (major === "5" && type === "dynamic-tool" && p.state === "output-denied")
    return { part: p, lost: [], drop: "AI SDK 5 dynamic-tool parts have no 'output-denied' state" };
  const lost: string[] = [];
  let out = p;
  const kind = isToolPart(p) ? "tool" : type;
  for (const a of ADDED_FIELDS) {
    if (a.major <= major || a.types !== kind) continue;
    for (const f of a.fields) {
      if (!(f in out)) continue;
      if (out === p) out = { ...p };
      delete out[f];
      lost.push(f);
    }
  }
  // v5 reads callProviderMetadata of an input-streaming tool part as an unknown key
  if (major === "5" && kind === "tool" && p.state === "input-streaming" && "callProviderMetadata" in out) {
    if (out === p) out = { ...p };
    delete out.callProviderMetadata;
    lost.push("callProviderMetadata");
  }
  if (kind === "tool" && isObj(p.approval)) {
    let approval = p.approval;
    for (const a of ADDED_APPROVAL_FIELDS) {
      if (a.major <= major) continue;
      for (const f of a.fields) {
        if (!(f in approval)) continue;
        if (approval === p.approval) approval = { ...approval };
        delete approval[f];
        lost.push(`approval/${f}`);
      }
    }
    if (approval !== p.approval) out = { ...out, approval };
  }
  return { part: out, lost };
}

/**
 * The tags that tell the branches of a format's unions apart (message `role`, content block `type`), per root
 * schema — so that an unknown tag is reported as one message listing the valid ones, nearest first, instead of
 * the errors of every branch. test/trust-values.test.ts checks each list against the schema files.
 */
import type { ErrorObject } from "ajv";
import { nearestFirst } from "../base/nearest.js";
import { pointerToPath } from "../base/json.js";

interface TagSet {
  role: readonly string[];
  type: readonly string[];
  /** an object with any other role is an extension message {role, kind, data} (serde untagged) */
  extension?: boolean;
}

const CANONICAL: TagSet = {
  role: ["user", "assistant", "toolResult", "system"],
  type: ["text", "image", "thinking", "toolCall", "file"],
};
const RUST: TagSet = {
  role: ["user", "assistant", "toolResult"],
  type: ["text", "image", "thinking", "toolCall"],
  extension: true,
};

export const TAGS: Record<string, TagSet> = {
  Checkpoint: CANONICAL,
  AgentMessage: CANONICAL,
  Message: CANONICAL,
  Content: CANONICAL,
  "formats/yoagent/messages": RUST,
  "formats/yoagent-session/entries": RUST,
  "formats/phi-core/messages": RUST,
  "formats/phi-core-session/session": RUST,
  "formats/deepagent/checkpoint": {
    role: ["system", "user", "assistant", "tool"],
    type: [
      "text",
      "image",
      "file",
      "reasoning",
      "tool-call",
      "tool-result",
      "tool-approval-request",
      "tool-approval-response",
    ],
  },
  "formats/swarmer/agent-state": { role: ["user", "assistant", "tool", "system", "function"], type: [] },
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function at(value: unknown, pointer: string): unknown {
  let v = value;
  for (const seg of pointerToPath(pointer)) {
    if (Array.isArray(v)) v = v[Number(seg)];
    else if (isObj(v)) v = v[seg];
    else return undefined;
  }
  return v;
}

/** A place where the document's tag names no branch: the object's pointer, the tag key and the valid values. */
interface Site {
  base: string;
  tag: "role" | "type";
  value: string;
  allowed: readonly string[];
  extension: boolean;
}

function siteOf(e: ErrorObject, set: TagSet | undefined, value: unknown): Site | undefined {
  const p = e.params as Record<string, unknown>;
  const tagged = (base: string, tag: string, allowed?: readonly string[]): Site | undefined => {
    if (tag !== "role" && tag !== "type") return undefined;
    const o = at(value, base);
    const v = isObj(o) ? o[tag] : undefined;
    const list = allowed ?? set?.[tag];
    if (typeof v !== "string" || !list?.length || list.includes(v)) return undefined;
    return { base, tag, value: v, allowed: list, extension: tag === "role" && Boolean(set?.extension) };
  };
  if (e.keyword === "discriminator" && p.error === "mapping") return tagged(e.instancePath, String(p.tag));
  if (e.keyword === "enum" || e.keyword === "const") {
    const m = /^(.*)\/(role|type)$/.exec(e.instancePath);
    if (!m) return undefined;
    const allowed = e.keyword === "enum" ? (p.allowedValues as unknown[]) : [p.allowedValue];
    if (!allowed.every((x) => typeof x === "string")) return undefined;
    // an enum narrower than the union (e.g. one branch's own roles) would mislead: prefer the format's full list
    const full = set?.[m[2] as "role" | "type"];
    return tagged(
      m[1]!,
      m[2]!,
      full && (allowed as string[]).every((x) => full.includes(x)) ? full : (allowed as string[]),
    );
  }
  // serde's untagged fallback: an object whose role is no LLM role must be an extension message {role, kind, data}
  if (e.keyword === "required" && set?.extension && (p.missingProperty === "kind" || p.missingProperty === "data"))
    return tagged(e.instancePath, "role");
  return undefined;
}

/**
 * Replace the errors at and under an object whose tag is unknown by one error at the tag (params.unknownTag), listing
 * the valid values nearest first. Other errors pass through in order.
 */
export function explainUnknownTags(schemaName: string, value: unknown, errors: readonly ErrorObject[]): ErrorObject[] {
  const set = TAGS[schemaName];
  const sites = new Map<string, Site>();
  for (const e of errors) {
    const s = siteOf(e, set, value);
    if (s && !sites.has(s.base)) sites.set(s.base, s);
  }
  if (sites.size === 0) return [...errors];
  const under = (path: string) => [...sites.keys()].find((b) => path === b || path.startsWith(b + "/"));
  const out: ErrorObject[] = [];
  const done = new Set<string>();
  for (const e of errors) {
    const b = under(e.instancePath);
    if (b === undefined) {
      out.push(e);
      continue;
    }
    if (done.has(b)) continue;
    done.add(b);
    const s = sites.get(b)!;
    // reported under the rule of the value check (schema/enum, or schema/discriminator where the schema dispatches)
    out.push({
      keyword: e.keyword === "discriminator" ? "discriminator" : "enum",
      instancePath: `${b}/${s.tag}`,
      schemaPath: e.schemaPath,
      params: {
        unknownTag: true,
        tag: s.tag,
        value: s.value,
        allowed: nearestFirst(s.value, s.allowed),
        extension: s.extension,
      },
    } as ErrorObject);
  }
  return out;
}

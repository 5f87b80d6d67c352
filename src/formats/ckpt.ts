/** ckpt's own canonical checkpoint format: a `Checkpoint` document, 2-space JSON. */
import type { Checkpoint } from "../generated/types.js";
import { parseJson, stringifyJson } from "../base/json.js";
import { inputError } from "../base/errors.js";
import type { FormatAdapter, SourceDoc } from "./types.js";

export const ckptAdapter: FormatAdapter<Checkpoint> = {
  name: "ckpt",
  title: "ckpt canonical checkpoint (JSON)",
  extensions: [".json", ".ckpt.json"],
  lossy: [],
  schema: "Checkpoint",
  // the detection below: `^\s*\{`, then `"schemaVersion"\s*:\s*1\b`
  detectNeeds: { first: "{", anyOf: ['"schemaVersion"'] },
  detect(doc: SourceDoc) {
    const t = doc.text;
    if (t === undefined) return { confidence: 0 };
    const head = t.slice(0, 4096);
    if (!/^\s*\{/.test(head)) return { confidence: 0 };
    return /"schemaVersion"\s*:\s*1\b/.test(t) && /"messages"\s*:/.test(t)
      ? { confidence: 0.95, version: "1" }
      : { confidence: 0 };
  },
  parse(doc: SourceDoc) {
    if (doc.text === undefined)
      throw inputError("not-a-file", "a ckpt checkpoint is a single JSON file", { file: doc.name });
    return parseJson(doc.text, { file: doc.name }) as Checkpoint;
  },
  toCanonical: (native) => native,
  fromCanonical: (cp) => cp,
  messagePointers: (native) => native.messages.map((_m, i) => `/messages/${i}`),
  serialize: (native) => ({ text: stringifyJson(native, 2) + "\n" }),
};

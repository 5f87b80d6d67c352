// SCAFFOLD: replaced by the yoagent-session adapter. Detects nothing until then.
import { inputError } from "../core/errors.js";
import type { FormatAdapter } from "./types.js";

const unbuilt = () => {
  throw inputError("unbuilt-format", "the yoagent-session adapter is not built yet");
};
export const yoagentSessionAdapter: FormatAdapter = {
  name: "yoagent-session",
  title: "yoagent-session",
  extensions: [".json"],
  lossy: [],
  schema: "Checkpoint",
  messagePointers: () => [],
  detect: () => ({ confidence: 0 }),
  parse: unbuilt,
  toCanonical: unbuilt,
  fromCanonical: unbuilt,
  serialize: unbuilt,
};

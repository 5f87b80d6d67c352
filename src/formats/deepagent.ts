// SCAFFOLD: replaced by the deepagent adapter. Detects nothing until then.
import { inputError } from "../core/errors.js";
import type { FormatAdapter } from "./types.js";

const unbuilt = () => {
  throw inputError("unbuilt-format", "the deepagent adapter is not built yet");
};
export const deepagentAdapter: FormatAdapter = {
  name: "deepagent",
  title: "deepagent",
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

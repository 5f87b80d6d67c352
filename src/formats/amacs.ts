// SCAFFOLD: replaced by the amacs adapter. Detects nothing until then.
import { inputError } from "../core/errors.js";
import type { FormatAdapter } from "./types.js";

const unbuilt = () => {
  throw inputError("unbuilt-format", "the amacs adapter is not built yet");
};
export const amacsAdapter: FormatAdapter = {
  name: "amacs",
  title: "amacs",
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

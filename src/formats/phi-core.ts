// SCAFFOLD: replaced by the phi-core adapter. Detects nothing until then.
import { inputError } from "../core/errors.js";
import type { FormatAdapter } from "./types.js";

const unbuilt = () => {
  throw inputError("unbuilt-format", "the phi-core adapter is not built yet");
};
export const phiCoreAdapter: FormatAdapter = {
  name: "phi-core",
  title: "phi-core",
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

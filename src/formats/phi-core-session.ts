// SCAFFOLD: replaced by the phi-core-session adapter. Detects nothing until then.
import { inputError } from "../core/errors.js";
import type { FormatAdapter } from "./types.js";

const unbuilt = () => {
  throw inputError("unbuilt-format", "the phi-core-session adapter is not built yet");
};
export const phiCoreSessionAdapter: FormatAdapter = {
  name: "phi-core-session",
  title: "phi-core-session",
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

// SCAFFOLD: replaced by the validate command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const validateCommand: CommandDef = {
  command: "validate",
  describe: "(validate: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "validate is not built yet");
  },
};

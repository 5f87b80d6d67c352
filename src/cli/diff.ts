// SCAFFOLD: replaced by the diff command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const diffCommand: CommandDef = {
  command: "diff",
  describe: "(diff: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "diff is not built yet");
  },
};

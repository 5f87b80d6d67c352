// SCAFFOLD: replaced by the ls command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const lsCommand: CommandDef = {
  command: "ls",
  describe: "(ls: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "ls is not built yet");
  },
};

// SCAFFOLD: replaced by the show command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const showCommand: CommandDef = {
  command: "show",
  describe: "(show: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "show is not built yet");
  },
};

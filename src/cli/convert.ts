// SCAFFOLD: replaced by the convert command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const convertCommand: CommandDef = {
  command: "convert",
  describe: "(convert: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "convert is not built yet");
  },
};

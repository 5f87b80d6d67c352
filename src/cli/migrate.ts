// SCAFFOLD: replaced by the migrate command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const migrateCommand: CommandDef = {
  command: "migrate",
  describe: "(migrate: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "migrate is not built yet");
  },
};

// SCAFFOLD: replaced by the schema command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const schemaCommand: CommandDef = {
  command: "schema",
  describe: "(schema: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "schema is not built yet");
  },
};

// SCAFFOLD: replaced by the replay command implementation.
import type { CommandDef } from "./command.js";
import { CkptError, ExitCode } from "../core/errors.js";

export const replayCommand: CommandDef = {
  command: "replay",
  describe: "(replay: not built yet)",
  builder: (y) => y,
  run: async () => {
    throw new CkptError(ExitCode.BUG, "unbuilt", "replay is not built yet");
  },
};

import type { Argv } from "yargs";
import type { CliIO } from "./io.js";

/** One CLI command: yargs wiring plus a run function that returns the exit code (never calls process.exit). */
export interface CommandDef {
  command: string | string[];
  describe: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  builder: (y: Argv) => Argv<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run: (args: any, io: CliIO) => Promise<number>;
}

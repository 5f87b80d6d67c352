/**
 * What `ckpt view` reads and is asked (shared by the page writer, cli/commands/view.ts, and the server, cli/commands/view-serve.ts): its
 * arguments, and one named input (file, folder, '-', uri#thread) read into a canonical checkpoint.
 */
import type { Checkpoint } from "../../generated/types.js";
import type { SourceDoc } from "../../formats/types.js";
import type { Input } from "../../savers/address.js";
import { readCheckpoint } from "../../formats/index.js";
import { readSource } from "../input.js";
import type { CliIO } from "../io.js";

export interface ViewArgs {
  inputs?: string[];
  output?: string;
  open: boolean;
  diff: boolean;
  serve: boolean;
  port?: number;
  host: string;
  format?: string;
  title?: string;
  historyLimit?: number;
  namespace?: string;
  redact?: string;
}

export interface Loaded {
  name: string;
  checkpoint: Checkpoint;
  format: string;
}

/** A document read, as a canonical checkpoint (converted once). */
export function loaded(doc: SourceDoc, format?: string): Loaded {
  const r = readCheckpoint(doc, format);
  return { name: doc.name, checkpoint: r.checkpoint, format: r.format };
}

/** Read one input (file, folder, '-', uri#thread), parsed by `parseInput`, into a canonical checkpoint. */
export async function loadInput(input: Input, io: CliIO, format?: string): Promise<Loaded> {
  return loaded(await readSource(input, { stdin: () => io.stdin, cwd: io.cwd, env: io.env }), format);
}

/**
 * What `ckpt view` reads and is asked (shared by the page writer, cli/view.ts, and the server, cli/view-serve.ts): its
 * arguments, and one named input (file, folder, '-', uri#thread) read into a canonical checkpoint.
 */
import { isAbsolute } from "node:path";
import type { Checkpoint } from "../generated/types.js";
import { readCheckpoint } from "../formats/index.js";
import { readSource } from "./input.js";
import type { CliIO } from "./io.js";

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
}

export interface Loaded {
  name: string;
  checkpoint: Checkpoint;
  format: string;
}

/** Read one named input (file, folder, '-', uri#thread) into a canonical checkpoint. */
export async function loadInput(spec: string, io: CliIO, format?: string, namespace?: string): Promise<Loaded> {
  const doc = await readSource(spec, {
    stdin: () => io.stdin,
    cwd: spec === "-" || isAbsolute(spec) ? undefined : io.cwd,
    namespace,
  });
  const r = readCheckpoint(doc, format);
  return { name: doc.name, checkpoint: r.checkpoint, format: r.format };
}

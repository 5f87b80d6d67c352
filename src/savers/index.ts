// SCAFFOLD: replaced by the savers implementation (URI parsing and lazy loading of each saver).
import { storeError } from "../core/errors.js";
import type { Saver } from "./types.js";

export async function openSaver(uri: string): Promise<Saver> {
  throw storeError("unbuilt", `savers are not built yet (${uri})`);
}
export * from "./types.js";

/**
 * `ckpt validate <store>` and `ckpt validate <store>#<thread>[@<checkpoint>]`: the store opened once and asked through
 * its engine. A layout with store-level rules (LangGraph: engines/langgraph/validate.ts) validates its rows — all of
 * them, one thread, or one checkpoint; a layout that judges its threads itself (a Chat SDK chat:
 * engines/ai-chatbot/validate.ts) names the rows of its findings; any other store's threads are validated as documents,
 * each loaded once.
 */
import { inputError } from "../../base/errors.js";
import { redactUri } from "../../base/redact.js";
import { type FileResult, validateDocument } from "../../core/document.js";
import type { Engine } from "../../engines/types.js";
import { type Address, type Input, locateAddress, splitAddress } from "../../savers/address.js";
import { keepsHistory } from "../../engines/langgraph/index.js";
import { DEFAULT_NAMESPACE } from "../../savers/types.js";
import { readSource, readThread } from "../input.js";
import type { CliIO } from "../io.js";

export interface StoreRunOptions {
  format?: string;
  maxErrors?: number;
  verbose?: boolean;
  library?: "python" | "js";
}

/** Where results go: one per input or thread, and whether --max-errors is reached (`rest`: what was left). */
export interface Results {
  take(r: FileResult): void;
  full(rest: string): boolean;
}

type StoreInput = Extract<Input, { kind: "store" | "address" }>;

/** Validate a store or one of its threads, the store opened once (by the caller: `open`). */
export async function validateInStore(
  input: StoreInput,
  engine: Engine,
  io: Pick<CliIO, "stdin" | "cwd">,
  opts: StoreRunOptions,
  results: Results,
): Promise<void> {
  // a store validated as a store (its rows): LangGraph's, unless another format was asked for
  const rows = opts.format === undefined || opts.format === "langgraph" ? engine.validateStore : undefined;
  if (rows)
    return results.take({
      ...(await rows(await storeValidation(input, engine, opts))),
      unit: input.kind === "address" ? "thread" : "store",
    });
  if (input.kind === "address") {
    const name = input.spec;
    // a layout that judges its threads itself (a Chat SDK chat: by its table's major, findings naming rows)
    if (engine.validateThread) {
      const r = await engine.validateThread(input.address.threadId, { name, format: opts.format });
      if (!r)
        throw inputError("missing-thread", `no chat '${input.address.threadId}' in the store`, {
          file: redactUri(name),
        });
      return results.take({ ...r, unit: "thread" });
    }
    return results.take({
      ...validateDocument(await readThread(engine, input.address), { format: opts.format }),
      unit: "thread",
    });
  }
  // a bare SQLite path names no whole store to validate: it is read as the document it is not (store-without-thread)
  if (input.bare) {
    await readSource(input, { stdin: () => io.stdin, cwd: io.cwd });
    return;
  }
  return everyThread(input, engine, opts, results);
}

/** What a LangGraph store is asked: all of it, one thread, or one checkpoint (resolved like every other command). */
async function storeValidation(input: StoreInput, engine: Engine, opts: StoreRunOptions) {
  const head = splitAddress(input.spec).store;
  const base = {
    label: redactUri(head) + (input.kind === "address" ? input.spec.slice(head.length) : ""),
    uriLabel: redactUri(head),
    ...(opts.maxErrors !== undefined ? { maxErrors: opts.maxErrors } : {}),
    ...(opts.library !== undefined ? { library: opts.library } : {}),
    verbose: opts.verbose,
  };
  if (input.kind === "store") return base;
  const a: Address = input.address;
  let checkpointId: string | undefined;
  if (keepsHistory(engine)) {
    const saver = engine.saver;
    // a thread alone is every checkpoint of the thread; @… names one; a namespace named must be one of the thread's
    if (a.selector.kind !== "latest" || a.literal !== undefined || a.namespace !== undefined) {
      const at = await locateAddress(saver, a, base.label);
      if (a.selector.kind !== "latest" || a.literal !== undefined) checkpointId = at.checkpointId;
    } else if (!(await engine.hasThread(a.threadId)))
      throw inputError("no-thread", `no checkpoint for thread '${a.threadId}'`, { file: base.uriLabel });
  }
  return {
    ...base,
    threadId: a.threadId,
    ...(checkpointId ? { checkpointId } : {}),
    ...(a.namespace !== undefined ? { namespace: a.namespace } : {}),
  };
}

/**
 * Every checkpoint of a store (all namespaces, or the one named by ?namespace= / --namespace), read one batch at a
 * time, each validated as `<uri>#<thread>` (with ?namespace= when it is not the default one), the address `ckpt show`
 * takes. A store that holds none is an input error, as an empty folder is.
 */
async function everyThread(
  input: Extract<Input, { kind: "store" }>,
  engine: Engine,
  opts: StoreRunOptions,
  results: Results,
): Promise<void> {
  const saver = engine.saver;
  const namespace = input.namespace;
  // as the user named it (a local path); a server URI without its password
  const label = input.store.kind === "sqlite" || input.store.kind === "file" ? input.spec : saver.uri;
  let seen = 0;
  for (const space of namespace !== undefined ? [namespace] : await saver.namespaces()) {
    for await (const batch of saver.scan({ namespace: space, batchSize: 200 })) {
      for (const r of batch) {
        if (results.full(": the rest of the store was not validated")) return;
        seen++;
        const ns =
          r.namespace === DEFAULT_NAMESPACE || input.store.params.has("namespace")
            ? ""
            : `${label.includes("?") ? "&" : "?"}namespace=${encodeURIComponent(r.namespace)}`;
        const name = `${label}${ns}#${r.threadId}`;
        // a layout that judges its threads itself (a Chat SDK chat: by its table's major, findings naming rows)
        const result =
          (await engine.validateThread?.(r.threadId, { name, format: opts.format, text: r.text })) ??
          validateDocument({ name, text: r.text }, { format: opts.format });
        results.take({ ...result, unit: "thread" });
      }
    }
  }
  if (seen === 0)
    throw inputError(
      "empty-store",
      `the store holds no checkpoints${namespace !== undefined ? ` in namespace '${namespace}'` : ""}`,
      { file: label },
    );
}

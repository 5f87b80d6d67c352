/**
 * `ckpt validate <langgraph-store>[#thread[@checkpoint]]`: a LangGraph SQLite or PostgreSQL store validated as a
 * store (core/langgraph/validate.ts): all of it, one thread, or one checkpoint (`@<id or prefix>`, `@latest`, `@~N`).
 * One FileResult per input, its issues naming each row. Inputs that are not LangGraph stores return undefined and
 * go through the document pipeline as before.
 */
import { isAbsolute, resolve } from "node:path";
import { CkptError, ExitCode } from "../base/errors.js";
import type { FileResult } from "../core/document.js";
import { SAVER_URI } from "./input.js";

/** A bare SQLite path (no scheme), with or without `#thread…`. */
const SQLITE_PATH = /^[^#?]*\.(sqlite3?|db)([?#].*)?$/i;

/** The store URI (to open) and the fragment of a spec, when it can name a LangGraph store. */
function storeSpec(spec: string, cwd: string): { uri: string; label: string; fragment?: string } | undefined {
  const hash = spec.indexOf("#");
  const head = hash < 0 ? spec : spec.slice(0, hash);
  const fragment = hash < 0 ? undefined : spec.slice(hash + 1);
  if (/^sqlite:/i.test(head)) {
    const path = head.slice(7).replace(/^\/\//, "");
    return { uri: `sqlite:${isAbsolute(path) ? path : resolve(cwd, path)}`, label: head, fragment };
  }
  if (/^postgres(ql)?:/i.test(head)) return { uri: head, label: head, fragment };
  if (SAVER_URI.test(head)) return undefined; // memory:, file:, redis: hold no LangGraph data
  if (SQLITE_PATH.test(head) && !head.includes(":"))
    return { uri: `sqlite:${resolve(cwd, head)}`, label: head, fragment };
  return undefined;
}

/**
 * Validate `spec` as a LangGraph store, or return undefined when it is not one (not a store URI, or a store with
 * ckpt's own layout). Store errors (cannot connect, missing file) come back as a fatal FileResult.
 */
export async function validateLangGraphSpec(
  spec: string,
  cwd: string,
  opts: { maxErrors?: number; namespace?: string; verbose?: boolean; library?: "python" | "js" } = {},
): Promise<FileResult | undefined> {
  const s = storeSpec(spec, cwd);
  if (!s) return undefined;
  const { redactUri: redact } = await import("../base/redact.js");
  const { openStore } = await import("./stores.js");
  const label = redact(s.label) + (s.fragment !== undefined ? `#${s.fragment}` : "");
  let opened;
  try {
    opened = await openStore(s.uri, { readOnly: true });
  } catch (e) {
    if (e instanceof CkptError) return fatal(label, e);
    throw e;
  }
  const { engine } = opened;
  // a store validated as a store (its rows): LangGraph's; any other goes through the document pipeline
  const validateStore = engine.validateStore;
  if (!validateStore) {
    await engine.close();
    return undefined;
  }
  try {
    let threadId: string | undefined;
    let checkpointId: string | undefined;
    let namespace: string | undefined;
    if (s.fragment !== undefined) {
      const { parseFragment, loadAddress } = await import("../savers/address.js");
      const { namespaceFor } = await import("./input.js");
      const at = parseFragment(s.fragment, spec);
      // one namespace rule: the URI's ?namespace=, else --namespace (an unknown one is an error listing the thread's)
      namespace = namespaceFor(spec.split("#")[0]!, opts.namespace);
      const address = { store: opened.uri, ...at, ...(namespace !== undefined ? { namespace } : {}) };
      threadId = at.threadId;
      // a thread alone is every checkpoint of the thread; @… names one (resolved like every other command)
      if (at.selector.kind !== "latest" || at.literal !== undefined)
        checkpointId = (await loadAddress(opened.saver, address, label)).checkpointId;
      else if (namespace !== undefined) await loadAddress(opened.saver, address, label);
      else if (!(await engine.hasThread(threadId)))
        return fatal(
          label,
          new CkptError(3, "no-thread", `no checkpoint for thread '${threadId}'`, { file: redact(s.label) }),
        );
    }
    return await validateStore({
      label,
      uriLabel: redact(s.label),
      ...(threadId !== undefined ? { threadId } : {}),
      ...(checkpointId ? { checkpointId } : {}),
      ...(opts.maxErrors !== undefined ? { maxErrors: opts.maxErrors } : {}),
      ...(opts.library !== undefined ? { library: opts.library } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      verbose: opts.verbose,
    });
  } catch (e) {
    if (e instanceof CkptError) return fatal(label, e);
    throw e;
  } finally {
    await engine.close();
  }
}

function fatal(label: string, e: CkptError): FileResult {
  const f: FileResult = {
    file: e.place.file ?? label,
    alternatives: [],
    valid: false,
    issues: [],
    fatal: { reason: e.reason, message: e.message },
  };
  if (e.place.line !== undefined) f.fatal!.line = e.place.line;
  if (e.place.column !== undefined) f.fatal!.column = e.place.column;
  if (e.exitCode === ExitCode.STORE) f.fatalExit = ExitCode.STORE;
  return f;
}

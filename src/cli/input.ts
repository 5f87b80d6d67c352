/**
 * Reading what the user names into SourceDocs: a file, `-` (stdin), an amacs folder, or `<saver-uri>#<threadId>`.
 * Every failure is a CkptError with the path and a documented exit code (3 input, 4 store).
 */
// fs.promises, not node:fs/promises: read when a folder or glob is walked, so that a run naming files never loads
// it (with its streams and readline: ~25 M instructions of a ~650 M cold start, issue #13)
import { promises as fsp, readFileSync, statSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { inputError, type CkptError } from "../base/errors.js";
import { redactUri } from "../base/redact.js";
import { plural } from "../base/plural.js";
import { MAX_TEXT_BYTES, tooLargeText } from "../base/json.js";
import { DEFAULT_NAMESPACE, type Saver } from "../savers/types.js";
import { type Address, type Input, loadAddress } from "../savers/address.js";
import type { Engine } from "../engines/types.js";
import type { SourceDoc } from "../formats/types.js";

export const AMACS_FILES = ["agent-chat.org", "scratchpad.org"];

/** Files a directory walk picks up (Swarmer writes JSON under a .pkl name). */
export const DOCUMENT_EXTENSIONS = [".json", ".jsonl", ".pkl"];
const SKIP_DIRS = new Set(["node_modules", ".git"]);
/** The largest document read (bigger files are refused, not half-read): what fits in one string (~512 MiB). */
export const MAX_DOCUMENT_BYTES = MAX_TEXT_BYTES;

export async function readStdin(stdin: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === "string" ? Buffer.from(c) : c);
  return Buffer.concat(chunks);
}

/** Decode bytes as UTF-8 text; refuse binary data and invalid UTF-8 with the byte offset. */
export function decodeText(buf: Buffer, name: string): string {
  if (buf.length === 0) throw inputError("empty", "empty file: expected a checkpoint document", { file: name });
  if (buf.length > MAX_TEXT_BYTES) throw inputError("too-large", tooLargeText(buf.length), { file: name });
  const probe = buf.subarray(0, 8192);
  if (probe.includes(0))
    throw inputError(
      "binary",
      `binary data (a NUL byte at offset ${probe.indexOf(0)}): expected a UTF-8 text document`,
      { file: name },
    );
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(buf);
  } catch {
    const text = buf.toString("utf8");
    const at = text.indexOf("\uFFFD");
    throw inputError(
      "encoding",
      `not valid UTF-8${at >= 0 ? ` (near character ${at})` : ""}: expected a UTF-8 text document`,
      { file: name },
    );
  }
}

export interface ReadOptions {
  /** standard input, asked for only when the input is "-" (creating process.stdin loads stream modules) */
  stdin: () => Readable;
  /** the command's folder (a bare SQLite path named where a checkpoint is read is taken from it) */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * a thread of a layout that judges its threads by their rows (Chat SDK tables) is refused (exit 3) when its rows
   * hold errors, named as `validate` names them: a reader that shows it would show a message with its parts dropped
   */
  rowsMustRead?: boolean;
}

/** `--namespace` of every command that reads `<saver-uri>#<thread>` (ls has its own: several, default all). */
export const NAMESPACE_OPTION = {
  type: "string",
  describe: "namespace of <saver-uri>#<thread> inputs, when the URI has no ?namespace= (default: 'default')",
} as const;

/**
 * "No thread X in namespace N", naming the namespace(s) where the thread does exist (one rule for show, validate,
 * diff, view, convert, replay and log).
 */
export async function noThreadError(saver: Saver, threadId: string, namespace: string): Promise<CkptError> {
  const elsewhere: string[] = [];
  for (const ns of await saver.namespaces())
    if (ns !== namespace && (await saver.exists(threadId, ns))) elsewhere.push(ns);
  const hint = elsewhere.length
    ? `; it is in namespace ${elsewhere.map((n) => `'${n}'`).join(", ")}: add ?namespace=${encodeURIComponent(elsewhere[0]!)} to the URI or pass --namespace ${elsewhere[0]}`
    : "";
  return inputError("no-thread", `no thread '${threadId}' in namespace '${namespace}'${hint}`, { file: saver.uri });
}

/**
 * One thread (or, in a LangGraph store, one checkpoint: `#thread@id|@latest|@~N`) of an opened store, loaded once. A
 * thread that lives only in another namespace is named as such.
 */
export async function readThread(engine: Engine, given: Address): Promise<SourceDoc> {
  const saver = engine.saver;
  const namespace = given.namespace ?? DEFAULT_NAMESPACE;
  // a store with a history addresses a checkpoint (@…), found when it is loaded; one without, a thread of a namespace
  const history = engine.caps.history;
  const {
    threadId,
    text,
    checkpointId,
    namespace: ns,
  } = await loadAddress(saver, given, saver.uri, {
    ...(history ? {} : { namespace }),
    missing: async (t) =>
      history
        ? inputError("no-thread", `no checkpoint for thread '${t}'`, { file: saver.uri })
        : noThreadError(saver, t, namespace),
  });
  // a subgraph's checkpoint is named with its namespace (the address that reads it again)
  const uri =
    ns && !engine.uri.params.has("namespace")
      ? `${saver.uri}${saver.uri.includes("?") ? "&" : "?"}namespace=${encodeURIComponent(ns)}`
      : saver.uri;
  return { name: `${uri}#${threadId}${history ? `@${checkpointId}` : ""}`, text, threadId };
}

/** A thread whose rows hold errors (its layout validates threads by their rows): exit 3, naming them as validate does. */
async function refuseBadRows(engine: Engine, doc: SourceDoc): Promise<void> {
  if (!engine.validateThread || doc.threadId === undefined || doc.text === undefined) return;
  const r = await engine.validateThread(doc.threadId, { name: doc.name, text: doc.text });
  const errors = r?.issues.filter((i) => i.severity === "error") ?? [];
  if (!errors.length) return;
  const shown = errors.slice(0, 3).map((i) => `${i.pointer ? `${i.pointer}: ` : ""}${i.message}`);
  throw inputError(
    "invalid-rows",
    `its rows do not read as a chat (${plural(errors.length, "error")}): ${shown.join("; ")}${errors.length > 3 ? "; …" : ""} (ckpt validate lists every finding)`,
    { file: doc.name },
  );
}

/** Open the store of an address (read-only, in its namespace) with its engine. */
export async function openAddress(a: Address, env?: NodeJS.ProcessEnv): Promise<Engine> {
  const { openStore } = await import("./stores.js");
  const { engine } = await openStore(a.store, { readOnly: true, namespace: a.namespace ?? DEFAULT_NAMESPACE, env });
  return engine;
}

/** A store named where one checkpoint is read (show, diff, convert, replay): say how to name one of its threads. */
function storeWithoutThread(spec: string, uri: string): CkptError {
  return inputError(
    "store-without-thread",
    `a store, not one checkpoint: name a thread as '${redactUri(spec)}#<thread>' ('ckpt ls ${redactUri(uri)}' lists them)`,
    { file: redactUri(spec) },
  );
}

/** Read one input, parsed by `parseInput`, into a SourceDoc (a store's thread: the store opened, the checkpoint loaded once). */
export async function readSource(input: Input, opts: ReadOptions): Promise<SourceDoc> {
  const spec = input.spec;
  if (input.kind === "stdin") return { name: "<stdin>", text: decodeText(await readStdin(opts.stdin()), "<stdin>") };
  if (input.kind === "address") {
    const engine = await openAddress(input.address, opts.env);
    try {
      const doc = await readThread(engine, input.address);
      if (opts.rowsMustRead) await refuseBadRows(engine, doc);
      return doc;
    } finally {
      await engine.close();
    }
  }
  if (input.kind === "store" && input.store.kind !== "file" && !input.bare) throw storeWithoutThread(spec, spec);
  const full = input.kind === "store" ? resolve(opts.cwd ?? ".", input.store.location) : input.path;
  // Synchronous stat and read: inputs are validated one after another anyway, and for documents of a few
  // hundred kB the promise-based readFile (chunked reads, event-loop turns) costs about as much as JSON.parse.
  let st;
  try {
    st = statSync(full);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw inputError("missing", "no such file or directory", { file: spec });
    if (code === "EACCES") throw inputError("unreadable", "permission denied", { file: spec }, e);
    throw inputError("unreadable", `cannot read: ${(e as Error).message}`, { file: spec }, e);
  }
  if (st.isDirectory()) {
    const names = await fsp.readdir(full);
    const org = AMACS_FILES.filter((n) => names.includes(n));
    if (org.length === 0 && input.kind === "store") throw storeWithoutThread(spec, spec);
    if (org.length === 0) {
      throw inputError(
        "directory",
        "is a directory: expected a file (or an amacs folder with agent-chat.org / scratchpad.org)",
        { file: spec },
      );
    }
    const files: Record<string, string> = {};
    for (const n of org) files[n] = decodeText(await fsp.readFile(join(full, n)), join(spec, n));
    return { name: spec, files };
  }
  if (!st.isFile()) throw inputError("not-a-file", "not a regular file", { file: spec });
  if (st.size > MAX_DOCUMENT_BYTES) throw inputError("too-large", tooLargeText(st.size), { file: spec });
  // Fast path: Node's one-call UTF-8 read (several times faster than bytes + a fatal TextDecoder). Invalid UTF-8
  // decodes to U+FFFD, so any text holding U+FFFD or an early NUL, an empty file, or one too long for a string goes
  // the byte-level way below, which decides exactly as before (a document may contain U+FFFD legitimately).
  let fast: string | undefined;
  try {
    fast = readFileSync(full, "utf8");
  } catch {
    fast = undefined;
  }
  if (fast !== undefined && fast.length > 0 && !fast.includes("\uFFFD") && !fast.slice(0, 8192).includes("\u0000")) {
    return { name: spec, text: fast.charCodeAt(0) === 0xfeff ? fast.slice(1) : fast }; // TextDecoder drops a BOM too
  }
  let buf: Buffer;
  try {
    buf = readFileSync(full);
  } catch (e) {
    throw inputError("unreadable", `cannot read: ${(e as Error).message}`, { file: spec }, e);
  }
  if (buf.subarray(0, 16).toString("latin1") === "SQLite format 3\u0000")
    throw storeWithoutThread(spec, `sqlite:${spec}`);
  return { name: spec, text: decodeText(buf, spec) };
}

/** One input to validate, as the user (or the directory walk) named it. */
export interface InputRef {
  spec: string;
}

async function isAmacsFolder(dir: string): Promise<boolean> {
  try {
    const names = await fsp.readdir(dir);
    return AMACS_FILES.some((n) => names.includes(n));
  } catch {
    return false;
  }
}

/** Every document under a directory: files with DOCUMENT_EXTENSIONS (except fixture `*.expect.json` files) and amacs folders, sorted, skipping node_modules/.git. */
export async function walkDocuments(dir: string, shown: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (full: string, label: string) => {
    if (await isAmacsFolder(full)) {
      out.push(label);
      return;
    }
    let entries;
    try {
      entries = await fsp.readdir(full, { withFileTypes: true });
    } catch (e) {
      throw inputError(
        "unreadable",
        `cannot list directory: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        { file: label },
      );
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childLabel = label.endsWith("/") || label.endsWith(sep) ? label + e.name : `${label}/${e.name}`;
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) await visit(join(full, e.name), childLabel);
      } else if (e.isFile() && DOCUMENT_EXTENSIONS.some((x) => e.name.endsWith(x)) && !e.name.endsWith(".expect.json"))
        out.push(childLabel);
    }
  };
  await visit(dir, shown);
  return out;
}

const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Expand what the user named into the documents to read: `-`, stores and their threads as they are, directories
 * walked (an amacs folder is one document), globs matched against a walk of their literal base directory.
 * A glob or directory that yields nothing is an input error (exit 3); a missing path is reported by readSource.
 */
export async function expandInputs(inputs: readonly Input[], cwd: string): Promise<Input[]> {
  const out: Input[] = [];
  const paths = (labels: string[]) => labels.map((spec): Input => ({ kind: "path", spec, path: resolve(cwd, spec) }));
  for (const input of inputs) {
    if (input.kind !== "path") {
      out.push(input);
      continue;
    }
    const spec = input.spec;
    if (GLOB_CHARS.test(spec)) {
      const { default: micromatch } = await import("micromatch"); // only glob runs pay for it
      const scan = micromatch.scan(spec);
      const base = scan.base === "" ? "." : scan.base;
      let found: string[] = [];
      try {
        if ((await fsp.stat(resolve(cwd, base))).isDirectory()) found = await walkDocuments(resolve(cwd, base), base);
      } catch {
        /* no base: nothing matches */
      }
      const matches = found.filter(
        (f) =>
          micromatch.isMatch(relative(".", f).split(sep).join("/"), spec.replace(/^\.\//, ""), { dot: false }) ||
          micromatch.isMatch(f, spec),
      );
      if (matches.length === 0)
        throw inputError(
          "no-match",
          "the pattern matches no checkpoint documents (.json, .jsonl, .pkl, amacs folders)",
          { file: spec },
        );
      out.push(...paths(matches));
      continue;
    }
    let st;
    try {
      st = statSync(input.path); // one file named: a synchronous stat, as readSource reads it
    } catch {
      out.push(input); // readSource reports it with its reason
      continue;
    }
    if (st.isDirectory() && !(await isAmacsFolder(input.path))) {
      const docs = await walkDocuments(input.path, spec);
      if (docs.length === 0)
        throw inputError(
          "empty-directory",
          "directory holds nothing to validate: expected .json, .jsonl or .pkl files or amacs folders",
          { file: spec },
        );
      out.push(...paths(docs));
    } else out.push(input);
  }
  return out;
}

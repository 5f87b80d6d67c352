/**
 * `ckpt view --serve [uri]`: the same pages as `ckpt view`, served on 127.0.0.1 and read-only. A saver URI (or a
 * folder) gives a store browser: the thread list paged with the saver's streaming `list` (cursor = the last thread
 * id of the page, so page 1,000 of a 100,000-thread store costs the same as page 1), and one page per thread.
 * A file gives that file's page. Only GET and HEAD; requests naming another host are refused (DNS rebinding).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CkptError, ExitCode, storeError } from "../../base/errors.js";
import { redactUri } from "../../base/redact.js";
import { readCheckpoint } from "../../formats/index.js";
import type { Saver } from "../../savers/types.js";
import type { Engine } from "../../engines/types.js";
import { keepsHistory } from "../../engines/langgraph/index.js";
import { escapeHtml, pagePolicy, renderCheckpointPage, renderHistoryPage, renderStorePage } from "../../view/index.js";
import { readHistory } from "./view-history.js";
import type { Input } from "../../savers/address.js";
import type { CliIO } from "../io.js";
import { loadInput, type ViewArgs } from "./view-input.js";

/** Threads per page of the store browser. */
export const PAGE_SIZE = 100;

type Handler = (url: URL) => Promise<{ status: number; html: string }>;

/** A store's pages: `/` (thread list: ?ns=, ?after=, ?n=) and `/thread?ns=&id=`. */
export function storeHandler(engine: Engine, label: string): Handler {
  const saver = engine.saver;
  return async (url) => {
    if (url.pathname === "/thread") {
      const id = url.searchParams.get("id");
      const ns = url.searchParams.get("ns") ?? undefined;
      if (id === null) return { status: 400, html: errorPage("missing ?id= (a thread id)") };
      const text = await saver.load(id, ns);
      const name = `${label}#${id}`;
      if (text === undefined) return { status: 404, html: errorPage(`no thread '${id}' in ${label}`) };
      const back = `/?ns=${encodeURIComponent(ns ?? "")}`;
      // a store that keeps every checkpoint: the thread's history page
      if (keepsHistory(engine)) {
        const h = await readHistory(engine.saver, id, label);
        return {
          status: 200,
          html: renderHistoryPage(h.entries, { title: `${name} — history`, source: name, back, omitted: h.omitted }),
        };
      }
      const { checkpoint } = readCheckpoint({ name, text });
      return { status: 200, html: renderCheckpointPage(checkpoint, { title: name, source: name, back }) };
    }
    if (url.pathname !== "/") return { status: 404, html: errorPage(`no page ${url.pathname}`) };
    return { status: 200, html: await listPage(saver, label, url) };
  };
}

async function listPage(saver: Saver, label: string, url: URL): Promise<string> {
  const namespaces = await saver.namespaces();
  const namespace =
    url.searchParams.get("ns") || (namespaces.includes("default") ? "default" : (namespaces[0] ?? "default"));
  const after = url.searchParams.get("after") ?? undefined;
  const offset = Math.max(0, Number(url.searchParams.get("n") ?? 0) || 0);
  const threads: Array<{ threadId: string; bytes: number; updatedAt?: string; href: string }> = [];
  let more = false;
  for await (const t of saver.list({ namespace, ...(after !== undefined ? { after } : {}), limit: PAGE_SIZE + 1 })) {
    if (threads.length === PAGE_SIZE) {
      more = true;
      break;
    }
    threads.push({
      threadId: t.threadId,
      bytes: t.bytes,
      ...(t.updatedAt ? { updatedAt: t.updatedAt } : {}),
      href: `/thread?ns=${encodeURIComponent(namespace)}&id=${encodeURIComponent(t.threadId)}`,
    });
  }
  const count = await saver.count(namespace);
  const last = threads[threads.length - 1];
  const next =
    more && last
      ? `/?ns=${encodeURIComponent(namespace)}&after=${encodeURIComponent(last.threadId)}&n=${offset + threads.length}`
      : undefined;
  return renderStorePage(
    { namespace, namespaces, count, offset, threads, ...(next ? { next } : {}) },
    { title: `${label} — threads`, source: label },
  );
}

function errorPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ckpt view: error</title></head><body><main><h1>ckpt view</h1><p>${escapeHtml(message)}</p><p><a href="/">store</a></p></main></body></html>\n`;
}

function send(res: ServerResponse, status: number, html: string, head: boolean): void {
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": pagePolicy(),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  });
  res.end(head ? undefined : html);
}

function respond(handler: Handler, allowedHosts: () => string[], io: CliIO) {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("read-only: GET and HEAD only\n");
      return;
    }
    if (!allowedHosts().includes(String(req.headers.host ?? ""))) {
      res.writeHead(421, { "content-type": "text/plain" }).end("unknown host\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    handler(url).then(
      (r) => send(res, r.status, r.html, req.method === "HEAD"),
      (e) => {
        const status = e instanceof CkptError ? (e.exitCode === ExitCode.STORE ? 502 : 422) : 500;
        const message = e instanceof CkptError ? e.format() : `internal error: ${(e as Error).message}`;
        if (status === 500) io.stderr.write(`ckpt: ${(e as Error).stack ?? message}\n`);
        send(res, status, errorPage(message), req.method === "HEAD");
      },
    );
  };
}

/** Run the server until SIGINT/SIGTERM; prints the URL on stdout. */
export async function serve(input: Input, args: ViewArgs, io: CliIO): Promise<number> {
  const spec = input.spec;
  let saver: Saver | undefined;
  let handler: Handler;
  if (input.kind === "store") {
    const { openStore } = await import("../stores.js");
    const { engine } = await openStore(input.store, { readOnly: true, env: io.env }); // viewing only reads: never creates the store
    saver = engine.saver;
    handler = storeHandler(engine, saver.uri);
  } else {
    const x = await loadInput(input, io, args.format); // read once, up front: a bad file fails before serving
    const html = renderCheckpointPage(x.checkpoint, {
      title: args.title ?? `${x.name} — thread ${x.checkpoint.threadId}`,
      source: x.name,
    });
    handler = async (url) =>
      url.pathname === "/" ? { status: 200, html } : { status: 404, html: errorPage(`no page ${url.pathname}`) };
  }
  let port = 0;
  const server = createServer(respond(handler, () => [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`], io));
  try {
    await new Promise<void>((ok, fail) => {
      server.once("error", fail);
      server.listen(args.port ?? 0, args.host, () => ok());
    });
  } catch (e) {
    await saver?.close();
    throw storeError(
      "listen",
      `cannot listen on ${args.host}:${args.port ?? 0}: ${(e as Error).message}`,
      undefined,
      e,
    );
  }
  port = (server.address() as AddressInfo).port;
  io.stdout.write(
    `ckpt view: serving ${redactUri(saver ? saver.uri : spec)} at http://127.0.0.1:${port}/ (read-only; Ctrl-C stops)\n`,
  );
  await new Promise<void>((done) => {
    const stop = () => {
      server.close(() => done());
      server.closeAllConnections();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    server.on("close", () => done());
  });
  await saver?.close();
  return ExitCode.OK;
}

/**
 * Subgraph namespaces (issue #26): `show`, `view`, `diff` and `validate` read the checkpoint namespace given by
 * `--namespace` or `?namespace=` (one rule: both, disagreeing, is a usage error), `@<id>` finds a checkpoint in any
 * namespace of the thread, and an unknown namespace is exit 3 naming the thread's namespaces. Checked against set C
 * (nested subgraphs with interrupts, written by Python langgraph and LangGraph JS) and its per-namespace counts.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli-io.js";
import { PG, pgTestSchemas } from "./helpers/pg-schemas.js";

const FIX = join(import.meta.dirname, "..", "fixtures", "langgraph");

interface Ns {
  ns: string;
  checkpoints: number;
  interrupt_pending: boolean;
  messages: number;
  last_message: string;
}
interface Counts {
  per_thread: Record<string, { per_namespace?: Ns[] }>;
}

const counts = (name: string): Counts => JSON.parse(readFileSync(join(FIX, "counts", `${name}.json`), "utf8"));

function textOf(m: { content: unknown }): string {
  if (typeof m.content === "string") return m.content;
  return (m.content as Array<{ type: string; text?: string }>)
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
}

for (const name of ["python-c", "js-c"]) {
  // a copy: set C's files are WAL-mode databases, and reading one may leave side files beside it
  const dir = mkdtempSync(join(tmpdir(), "lg-ns-"));
  const file = join(dir, `${name}.sqlite`);
  copyFileSync(join(FIX, `${name}.sqlite`), file);
  const c = counts(`${name}.sqlite`);
  const nested = Object.entries(c.per_thread).filter(([, t]) => (t.per_namespace?.length ?? 0) > 1);

  describe(`subgraph namespaces: ${name}.sqlite`, () => {
    it("has threads with nested subgraphs (the set this file checks)", () => {
      expect(nested.length).toBeGreaterThanOrEqual(2);
    });

    it("validate --namespace checks that namespace only: its checkpoint count is the counts' for the namespace", async () => {
      for (const [thread, t] of nested) {
        for (const ns of t.per_namespace!) {
          const r = await runCli(["validate", `${file}#${thread}`, "--namespace", ns.ns, "--json", "--verbose"]);
          expect(r.code, `${thread} '${ns.ns}': ${r.err}`).toBe(0);
          const f = JSON.parse(r.out).files[0] as {
            formatVersion: string;
            issues: Array<{ row?: { namespace: string } }>;
          };
          expect(f.formatVersion, `${thread} '${ns.ns}'`).toContain(`, ${ns.checkpoints} checkpoints,`);
          for (const i of f.issues) if (i.row) expect(i.row.namespace).toBe(ns.ns);
        }
      }
    });

    it("show --namespace and ?namespace= read each namespace's newest checkpoint (counts' messages, last text)", async () => {
      for (const [thread, t] of nested) {
        for (const ns of t.per_namespace!) {
          const flag = await runCli(["show", `${file}#${thread}`, "--namespace", ns.ns, "--json"]);
          expect(flag.code, `${thread} ${ns.ns}: ${flag.err}`).toBe(0);
          const msgs = JSON.parse(flag.out).messages;
          expect(msgs.length, `${thread} '${ns.ns}'`).toBe(ns.messages);
          expect(textOf(msgs[msgs.length - 1])).toBe(ns.last_message);
          const uri = await runCli([
            "show",
            `sqlite:${file}?namespace=${encodeURIComponent(ns.ns)}#${thread}`,
            "--json",
          ]);
          expect(uri.code, uri.err).toBe(0);
          expect(JSON.parse(uri.out).messages.length).toBe(ns.messages);
        }
      }
    });

    it("an unknown namespace is exit 3 naming every namespace of the thread, in show, view, diff and validate", async () => {
      const [thread, t] = nested[0]!;
      for (const argv of [
        ["show", `${file}#${thread}`, "--namespace", "nope:1"],
        ["show", `sqlite:${file}?namespace=nope:1#${thread}`],
        ["view", `${file}#${thread}`, "--namespace", "nope:1", "-o", "-"],
        ["diff", `${file}#${thread}`, `${file}#${thread}@~1`, "--namespace", "nope:1"],
        ["validate", `${file}#${thread}`, "--namespace", "nope:1"],
      ]) {
        const r = await runCli(argv);
        expect(r.code, argv.join(" ")).toBe(3);
        const said = r.err + r.out;
        expect(said).toContain("no checkpoint namespace 'nope:1'");
        for (const ns of t.per_namespace!) if (ns.ns) expect(said).toContain(`'${ns.ns}'`);
      }
    });

    it("ls <store>#<thread> lists the thread's namespaces with the counts' checkpoints, messages and interrupts", async () => {
      for (const [thread, t] of Object.entries(c.per_thread)) {
        const r = await runCli(["ls", `${file}#${thread}`, "--json"]);
        expect(r.code, r.err).toBe(0);
        const rows = JSON.parse(r.out) as Array<{
          namespace: string;
          checkpoints: number;
          messages: number;
          interrupted: boolean;
        }>;
        expect(rows.map((x) => x.namespace).sort()).toEqual(t.per_namespace!.map((n) => n.ns).sort());
        for (const ns of t.per_namespace!) {
          const row = rows.find((x) => x.namespace === ns.ns)!;
          expect([row.checkpoints, row.messages, row.interrupted], `${thread} '${ns.ns}'`).toEqual([
            ns.checkpoints,
            ns.messages,
            ns.interrupt_pending,
          ]);
        }
      }
      const [thread, t] = nested[0]!;
      const table = await runCli(["ls", `${file}#${thread}`]);
      for (const ns of t.per_namespace!) if (ns.ns) expect(table.out).toContain(ns.ns);
      const bad = await runCli(["ls", `${file}#${thread}`, "--namespace", "nope:1"]);
      expect(bad.code).toBe(3);
      expect(bad.err).toContain(t.per_namespace!.find((n) => n.ns)!.ns);
      // a namespace given for the whole store is said to be a thread's, never ignored (the root graph listed)
      const store = await runCli(["ls", file, "--namespace", t.per_namespace!.find((n) => n.ns)!.ns]);
      expect(store.code).toBe(2);
      expect(store.err).toContain("#<thread>");
    });

    it("--namespace and ?namespace= disagreeing is a usage error", async () => {
      const [thread] = nested[0]!;
      const r = await runCli(["show", `sqlite:${file}?namespace=a:1#${thread}`, "--namespace", "b:2"]);
      expect(r.code).toBe(2);
    });

    it("@<id> finds a subgraph checkpoint without --namespace (show, view, validate)", async () => {
      const db = new Database(file, { readonly: true });
      try {
        for (const [thread, t] of nested) {
          for (const ns of t.per_namespace!.filter((n) => n.ns !== "")) {
            const id = db
              .prepare(
                "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1",
              )
              .pluck()
              .get(thread, ns.ns) as string;
            const r = await runCli(["show", `${file}#${thread}@${id}`, "--json"]);
            expect(r.code, r.err).toBe(0);
            expect(JSON.parse(r.out).messages.length, `${thread}@${id}`).toBe(ns.messages);
            const v = await runCli(["validate", `${file}#${thread}@${id.slice(0, 30)}`]);
            expect(v.code, v.out + v.err).toBe(0);
            const page = await runCli(["view", `${file}#${thread}@${id}`, "-o", "-"]);
            expect(page.code, page.err).toBe(0);
            expect(page.out).toContain(ns.ns);
            // the id is not in the root graph: naming the root graph does not find it
            const root = await runCli(["show", `${file}#${thread}@${id}`, "--namespace", "default"]);
            expect(root.code).toBe(3);
            expect(root.err).toContain("in namespace ''");
          }
        }
      } finally {
        db.close();
      }
    });

    it("diff compares a subgraph's checkpoints with --namespace", async () => {
      const [thread, t] = nested.find(([, x]) => x.per_namespace!.some((n) => n.ns && n.checkpoints >= 2))!;
      const ns = t.per_namespace!.find((n) => n.ns && n.checkpoints >= 2)!;
      const r = await runCli(["diff", `${file}#${thread}@~1`, `${file}#${thread}`, "--namespace", ns.ns, "--json"]);
      expect([0, 1], r.err).toContain(r.code);
      expect(r.err).toBe("");
      // the same diff of the root graph says something else: the namespace was read
      const root = await runCli(["diff", `${file}#${thread}@~1`, `${file}#${thread}`, "--json"]);
      expect(root.out).not.toBe(r.out);
    });
  });
}

describe("subgraph namespaces: set C PostgreSQL dumps", () => {
  const pg = pgTestSchemas("lgns");
  for (const name of ["python-c", "js-c"]) {
    it(`${name}.pg.sql: show --namespace per namespace, an unknown one listed, @<id> in a subgraph`, async () => {
      const schema = pg.schema(name.replace("-", "_"));
      execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", PG], {
        input: readFileSync(join(FIX, `${name}.pg.sql`), "utf8").replaceAll("__SCHEMA__", schema),
        stdio: ["pipe", "ignore", "pipe"],
      });
      const store = `${PG}?schema=${schema}`;
      const c = counts(`${name}.pg`);
      const nested = Object.entries(c.per_thread).filter(([, t]) => (t.per_namespace?.length ?? 0) > 1);
      expect(nested.length).toBeGreaterThanOrEqual(2);
      for (const [thread, t] of nested) {
        for (const ns of t.per_namespace!) {
          const r = await runCli(["show", `${store}#${thread}`, "--namespace", ns.ns, "--json"]);
          expect(r.code, r.err).toBe(0);
          const msgs = JSON.parse(r.out).messages;
          expect(msgs.length, `${thread} '${ns.ns}'`).toBe(ns.messages);
          expect(textOf(msgs[msgs.length - 1])).toBe(ns.last_message);
        }
        const bad = await runCli(["show", `${store}#${thread}`, "--namespace", "nope:1"]);
        expect(bad.code).toBe(3);
        for (const ns of t.per_namespace!) if (ns.ns) expect(bad.err).toContain(`'${ns.ns}'`);
      }
      const [thread, t] = nested[0]!;
      const sub = t.per_namespace!.find((n) => n.ns)!;
      const ids = await pg.query(
        `SELECT checkpoint_id FROM ${schema}.checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1`,
        [thread, sub.ns],
      );
      const r = await runCli(["show", `${store}#${thread}@${ids.rows[0].checkpoint_id}`, "--json"]);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out).messages.length).toBe(sub.messages);
    });
  }
});

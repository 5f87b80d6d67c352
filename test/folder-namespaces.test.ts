/**
 * A folder store's namespaces (FileStore.namespaces, read with synchronous directory reads): every subfolder that holds
 * checkpoint files (a link to one too) is a namespace, sorted; anything else at the top (files, an empty folder, a
 * .git) makes the default namespace one as well; a folder with namespace folders only has no default namespace.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSaver } from "../src/savers/index.js";

const dir = mkdtempSync(join(tmpdir(), "ckpt-folder-ns-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const doc = JSON.stringify({ threadId: "t", messages: [{ role: "user", content: "hi" }] });

describe("folder store namespaces", () => {
  it("namespace folders (and a link to one) sorted; the default namespace when anything else is there", async () => {
    const root = join(dir, "mixed");
    for (const ns of ["zeta", "alpha", "mid dle"]) {
      mkdirSync(join(root, ns), { recursive: true });
      writeFileSync(join(root, ns, "t.json"), doc);
    }
    mkdirSync(join(root, "empty"));
    symlinkSync(join(root, "alpha"), join(root, "linked"));
    for (let i = 0; i < 600; i++) writeFileSync(join(root, `t-${i}.json`), doc); // more than one read of entries
    const s = await openSaver(`file:${root}`);
    try {
      expect(await s.namespaces()).toEqual(["alpha", "default", "linked", "mid dle", "zeta"].sort());
    } finally {
      await s.close();
    }
  });

  it("namespace folders only: no default namespace", async () => {
    const root = join(dir, "only");
    mkdirSync(join(root, "b"), { recursive: true });
    writeFileSync(join(root, "b", "t.json"), doc);
    const s = await openSaver(`file:${root}`);
    try {
      expect(await s.namespaces()).toEqual(["b"]);
    } finally {
      await s.close();
    }
  });
});

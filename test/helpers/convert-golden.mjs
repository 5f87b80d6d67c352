// The bytes `ckpt convert` writes for every document under fixtures/<format>/{valid,warn} into every target format,
// as one sha256 per (fixture, target), with the loss count and the failure reason when the conversion refuses.
// test/convert-golden.test.ts compares them with test/golden/convert-outputs.json, so that a change made for speed
// (issue #41: the deep-agent reader, the writers, the output check) cannot alter a written byte unseen. The figures
// were made by the code before those changes: `node test/helpers/convert-golden.mjs <root with dist/> > file`.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Every fixture document: a file, or an amacs folder (its .org files). */
export function fixtureDocs(root) {
  const docs = [];
  const fixtures = join(root, "fixtures");
  for (const format of readdirSync(fixtures).sort()) {
    for (const kind of ["valid", "warn"]) {
      const dir = join(fixtures, format, kind);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (name.endsWith(".expect.json")) continue;
        const name_ = relative(root, path);
        if (statSync(path).isDirectory()) {
          const files = {};
          for (const f of readdirSync(path).sort())
            if (f.endsWith(".org")) files[f] = readFileSync(join(path, f), "utf8");
          if (Object.keys(files).length) docs.push({ name: name_, files });
        } else docs.push({ name: name_, text: readFileSync(path, "utf8") });
      }
    }
  }
  return docs;
}

const sha = (s) => createHash("sha256").update(s).digest("hex").slice(0, 24);

/** { "<fixture> -> <target>": "<sha of the output> lossy=<n>" | "error <reason>" } */
export function goldenOf(root, convertDocument, targets) {
  const out = {};
  for (const doc of fixtureDocs(root)) {
    for (const to of targets) {
      let v;
      try {
        const r = convertDocument(doc, { to });
        const o = r.output;
        const text =
          "text" in o
            ? o.text
            : Object.keys(o.files)
                .sort()
                .map((k) => `${k}\n${o.files[k]}`)
                .join("\n\0\n");
        v = `${sha(text)} lossy=${r.lossLog.length}`;
      } catch (e) {
        v = `error ${e?.reason ?? e?.name}`;
      }
      out[`${doc.name} -> ${to}`] = v;
    }
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv[2] ?? ".");
  const { convertDocument } = await import(pathToFileURL(join(root, "dist", "core", "convert.js")).href);
  const { FORMAT_NAMES } = await import(pathToFileURL(join(root, "dist", "formats", "index.js")).href);
  process.stdout.write(`${JSON.stringify(goldenOf(process.cwd(), convertDocument, FORMAT_NAMES), null, 2)}\n`);
}

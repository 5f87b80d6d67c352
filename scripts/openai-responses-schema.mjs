#!/usr/bin/env node
// Derives schemas/formats/openai-agents/responses-items.json — a list of OpenAI Responses API input items, the
// `ResponseInputItem` union of the installed `openai` package (test/peers/node_modules/openai, the version
// @openai/agents uses) — from that package's TypeScript declarations (resources/responses/responses.d.ts), with the
// TypeScript compiler's type checker: every member of the union and every type it reaches becomes a JSON Schema
// definition (string literal unions → enum, `T | null` → nullable, optional properties → not required, arrays,
// index signatures → additionalProperties, `unknown` → any value). Objects stay open (no additionalProperties:
// false): the Python SDK stores its own pydantic models' dumps, which may hold fields a given `openai` version lacks.
// One departure from the declarations: an item's `id` is optional (see below), as the SDK sends items.
// An item is dispatched on its `type`: a known type is checked against its member(s); an item without `type` is a
// message (EasyInputMessage, ResponseInputItem.Message) or an item reference.
//
// Run with the machine's Node: `node scripts/openai-responses-schema.mjs` (writes), `--check` (compares: exit 1 when
// stale). A test runs the check against the installed package.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "test", "peers", "node_modules", "openai");
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const file = join(pkg, "resources", "responses", "responses.d.ts");
const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true });
const checker = program.getTypeChecker();
const source = program.getSourceFile(file);

/** The exported declaration of a dotted name in the file (`ResponseInputItem`, `ResponseInputItem.Message`). */
function symbolOf(name) {
  let sym = checker.getSymbolAtLocation(source);
  for (const part of name.split(".")) {
    sym = checker.getExportsOfModule(sym).find((s) => s.name === part) ?? sym.exports?.get(part);
    if (!sym) throw new Error(`no ${name} in ${file}`);
  }
  return sym;
}

const defs = {};
/** A readable definition name for a named type: its qualified name inside the module. */
function defName(type) {
  const sym = type.aliasSymbol ?? type.getSymbol();
  if (!sym || sym.name === "__type" || sym.name === "__object" || sym.name === "Array") return undefined;
  const decl = sym.declarations?.[0];
  if (!decl?.getSourceFile().fileName.includes("/openai/")) return undefined;
  return checker.getFullyQualifiedName(sym).replace(/^".*"\./, "");
}

const DOC = (sym) =>
  ts
    .displayPartsToString(sym?.getDocumentationComment(checker) ?? [])
    .split("\n\n")[0]
    .trim();

function literalSchema(types) {
  const values = types.map((t) => t.value);
  return values.length === 1 ? { const: values[0] } : { enum: values };
}

function unionSchema(type) {
  let nullable = false;
  const rest = [];
  for (const t of type.types) {
    if (t.flags & ts.TypeFlags.Null) nullable = true;
    else if (!(t.flags & ts.TypeFlags.Undefined)) rest.push(t);
  }
  // boolean is true | false
  const bools = rest.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
  const others = rest.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
  const parts = [];
  if (bools.length === 2) parts.push({ type: "boolean" });
  else for (const b of bools) parts.push({ const: checker.typeToString(b) === "true" });
  const lits = others.filter((t) => t.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral));
  if (lits.length) parts.push(literalSchema(lits));
  for (const t of others.filter((t) => !lits.includes(t))) parts.push(schemaOf(t));
  if (nullable) {
    if (parts.length === 1 && parts[0].enum) return { enum: [...parts[0].enum, null] };
    if (parts.length === 1 && "const" in parts[0]) return { enum: [parts[0].const, null] };
    parts.push({ type: "null" });
  }
  return parts.length === 1 ? parts[0] : { anyOf: parts };
}

function objectSchema(type) {
  const out = { type: "object" };
  const properties = {};
  const required = [];
  for (const p of checker.getPropertiesOfType(type)) {
    const decl = p.valueDeclaration ?? p.declarations?.[0];
    const t = checker.getTypeOfSymbolAtLocation(p, decl);
    const s = schemaOf(checker.getNonNullableType(t) === t ? t : t);
    const doc = DOC(p);
    properties[p.name] = doc && !s.$ref ? { description: doc, ...s } : s;
    if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.name);
  }
  if (Object.keys(properties).length) out.properties = properties;
  if (required.length) out.required = required;
  const index = checker.getIndexInfoOfType(type, ts.IndexKind.String);
  if (index) out.additionalProperties = schemaOf(index.type);
  return out;
}

function schemaOf(type) {
  const f = type.flags;
  if (f & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return {};
  if (f & ts.TypeFlags.String) return { type: "string" };
  if (f & ts.TypeFlags.Number) return { type: "number" };
  if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
  if (f & ts.TypeFlags.Null) return { type: "null" };
  if (f & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral)) return { const: type.value };
  if (f & ts.TypeFlags.BooleanLiteral) return { const: checker.typeToString(type) === "true" };
  const name = defName(type);
  if (name && !(f & ts.TypeFlags.Union && type.types.every((t) => t.flags & ts.TypeFlags.StringLiteral))) {
    if (!defs[name]) {
      defs[name] = {};
      const s = f & ts.TypeFlags.Union ? unionSchema(type) : bodyOf(type);
      const doc = DOC(type.aliasSymbol ?? type.getSymbol());
      defs[name] = doc ? { description: doc, ...s } : s;
    }
    return { $ref: `#/$defs/${name}` };
  }
  if (f & ts.TypeFlags.Union) return unionSchema(type);
  return bodyOf(type);
}

function bodyOf(type) {
  if (type.flags & ts.TypeFlags.Union) return unionSchema(type);
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const [el] = checker.getTypeArguments(type);
    return { type: "array", items: schemaOf(el) };
  }
  if (type.flags & ts.TypeFlags.Intersection) {
    // `string & {}` (an open string union's "any other string"): the primitive
    const prim = type.types.find((t) => t.flags & (ts.TypeFlags.String | ts.TypeFlags.Number));
    if (prim) return schemaOf(prim);
    return objectSchema(type);
  }
  if (type.flags & ts.TypeFlags.Object) return objectSchema(type);
  throw new Error(`unsupported type ${checker.typeToString(type)}`);
}

// ---- the union, dispatched on `type` ----
const union = checker.getDeclaredTypeOfSymbol(symbolOf("ResponseInputItem"));
const byType = new Map();
const untyped = [];
for (const member of union.types) {
  const ref = schemaOf(member);
  // an item's `id` is not required (but an item reference's, which is nothing else): the SDK sends items without
  // one — getInputItems leaves out the placeholder id of items its model did not name — and the API takes them
  const def = ref.$ref && defs[ref.$ref.slice("#/$defs/".length)];
  if (def?.required && !ref.$ref.endsWith("ItemReference")) {
    def.required = def.required.filter((k) => k !== "id");
    if (def.required.length === 0) delete def.required;
  }
  const typeProp = checker.getPropertyOfType(member, "type");
  const values = [];
  let optional = true;
  if (typeProp) {
    optional = Boolean(typeProp.flags & ts.SymbolFlags.Optional);
    const t = checker.getTypeOfSymbolAtLocation(typeProp, typeProp.valueDeclaration);
    for (const u of t.flags & ts.TypeFlags.Union ? t.types : [t]) {
      if (u.flags & ts.TypeFlags.StringLiteral) values.push(u.value);
      else if (u.flags & ts.TypeFlags.Null) optional = true;
    }
  }
  if (optional) untyped.push(ref);
  for (const v of values) byType.set(v, [...(byType.get(v) ?? []), ref]);
}
const one = (refs) => (refs.length === 1 ? refs[0] : { anyOf: refs });
const item = {
  description: "One Responses API input item (ResponseInputItem), chosen by its `type`.",
  type: "object",
  properties: { type: { enum: [...byType.keys(), null] } },
  allOf: [
    ...[...byType].map(([t, refs]) => ({
      if: { properties: { type: { const: t } }, required: ["type"] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: one(refs),
    })),
    {
      if: { anyOf: [{ not: { required: ["type"] } }, { properties: { type: { type: "null" } } }] },
      // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword
      then: one(untyped),
    },
  ],
};
const sortedDefs = Object.fromEntries(
  Object.keys(defs)
    .sort()
    .map((k) => [k, defs[k]]),
);
const schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://ckpt.dev/schemas/v1/formats/openai-agents/responses-items.json",
  title: "OpenAIResponsesItems",
  description: `A list of OpenAI Responses API input items (ResponseInputItem[]): what the Python Agents SDK's sessions store (to_input_list(): one json.dumps(item) per SQLiteSession row) and what the JS SDK sends the Responses API. Derived by scripts/openai-responses-schema.mjs from the TypeScript declarations of openai ${version} (resources/responses/responses.d.ts); do not edit. Objects are open: fields a given openai version lacks are allowed.`,
  type: "array",
  items: { $ref: "#/$defs/Item" },
  $defs: { Item: item, ...sortedDefs },
};
const text = `${JSON.stringify(schema, null, 2)}\n`;
const out = join(root, "schemas", "formats", "openai-agents", "responses-items.json");
if (process.argv.includes("--check") || process.env.CKPT_SCHEMAS_CHECK === "1") {
  let old = "";
  try {
    old = readFileSync(out, "utf8");
  } catch {}
  if (old !== text) {
    console.error(
      "stale: schemas/formats/openai-agents/responses-items.json (run node scripts/openai-responses-schema.mjs)",
    );
    process.exit(1);
  }
} else writeFileSync(out, text);

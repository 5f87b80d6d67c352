/**
 * ajv errors → clear Issues. ajv (allErrors) reports every failing branch of a oneOf/anyOf; a user wants the
 * errors of the branch they meant. Pruning rules (documented in the README):
 * 1. `if` errors are dropped (the failing `then` errors are reported themselves).
 * 2. For a oneOf/anyOf at pointer P, the branches that fail on a discriminant (`const`/`enum`/`not` on
 *    P/role, P/type or P/kind, or a `discriminator` error at P) are "other shapes": their mismatch and the
 *    errors at exactly P next to it (the `required`/`additionalProperties` of that branch) are dropped.
 * 3. The oneOf/anyOf error itself is dropped when anything else remains for P; when nothing remains it is
 *    reported as "matches none of the allowed shapes" (or the discriminator error, which names the tag).
 */
import type { ErrorObject } from "ajv";

/** Keys that tell the branches of a union apart in ckpt's and the seed systems' schemas. */
const DISCRIMINANTS = new Set(["role", "type", "kind", "op", "event"]);

function under(path: string, base: string): boolean {
  return path === base || path.startsWith(base + "/");
}

function isMismatch(e: ErrorObject, p: string): boolean {
  if (e.keyword === "discriminator" && e.instancePath === p) return true;
  if (e.keyword !== "const" && e.keyword !== "enum" && e.keyword !== "not") return false;
  if (!e.instancePath.startsWith(p + "/")) return false;
  const rest = e.instancePath.slice(p.length + 1);
  return !rest.includes("/") && DISCRIMINANTS.has(rest);
}

/** The errors worth showing, most specific branch only. */
export function pruneErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const drop = new Set<number>();
  errors.forEach((e, i) => {
    if (e.keyword === "if") drop.add(i);
  });
  for (let k = 0; k < errors.length; k++) {
    const u = errors[k]!;
    if (u.keyword !== "oneOf" && u.keyword !== "anyOf") continue;
    const p = u.instancePath;
    // the group: the contiguous run of errors before the union error that lie at or under P
    let start = k;
    while (
      start > 0 &&
      under(errors[start - 1]!.instancePath, p) &&
      !(isUnion(errors[start - 1]!) && errors[start - 1]!.instancePath === p)
    )
      start--;
    for (let i = start; i < k; i++) {
      if (!isMismatch(errors[i]!, p)) continue;
      drop.add(i);
      // the mismatching branch's own errors at P: adjacent, and from the same (sub)schema
      const base = schemaBase(errors[i]!);
      const same = (j: number) => errors[j]!.instancePath === p && schemaBase(errors[j]!) === base;
      for (let j = i - 1; j >= start && same(j); j--) drop.add(j);
      for (let j = i + 1; j < k && same(j) && !isMismatch(errors[j]!, p); j++) drop.add(j);
    }
    const remaining = range(start, k).filter((i) => !drop.has(i));
    if (remaining.length > 0) drop.add(k);
    else {
      const disc = range(start, k).find((i) => errors[i]!.keyword === "discriminator");
      if (disc !== undefined) {
        drop.delete(disc);
        drop.add(k);
      }
    }
  }
  const out = errors.filter((_e, i) => !drop.has(i));
  // identical (pointer, keyword, params) errors can come from several branches: keep one
  const seen = new Set<string>();
  return out.filter((e) => {
    const key = `${e.instancePath}\0${e.keyword}\0${JSON.stringify(e.params)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The schema an error comes from: its schemaPath without the failing keyword (and, for a discriminant
 * mismatch, without `/properties/<key>`), e.g. "#/oneOf/3/required" → "#/oneOf/3", "#/properties/role/not" → "#".
 */
function schemaBase(e: ErrorObject): string {
  // one or the other: a discriminant's `/properties/<key>/<keyword>`, else the failing keyword alone
  const discriminant = /\/properties\/[^/]+\/(const|enum|not)$/;
  return discriminant.test(e.schemaPath)
    ? e.schemaPath.replace(discriminant, "")
    : e.schemaPath.replace(/\/[^/]+$/, "");
}

function isUnion(e: ErrorObject): boolean {
  return e.keyword === "oneOf" || e.keyword === "anyOf";
}
function range(a: number, b: number): number[] {
  return Array.from({ length: Math.max(0, b - a) }, (_x, i) => a + i);
}

const list = (xs: readonly unknown[]) => xs.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ");

/** What the schema expected at this error, in plain words. */
export function describeError(e: ErrorObject): { pointer: string; message: string; expected: string } {
  const p = e.params as Record<string, unknown>;
  const at = e.instancePath;
  if (p.unknownTag) {
    // schema/tags.ts: an unknown tag, with the valid values nearest first
    const allowed = (p.allowed as string[]).join(", ");
    const ext = p.extension ? ", or an extension message with 'kind' and 'data'" : "";
    return {
      pointer: at,
      message: `unknown ${String(p.tag)} ${JSON.stringify(p.value)}: expected one of ${allowed}${ext}`,
      expected: `one of ${allowed}${ext}`,
    };
  }
  switch (e.keyword) {
    case "required":
      return {
        pointer: at,
        message: `missing required property '${String(p.missingProperty)}'`,
        expected: `property '${String(p.missingProperty)}'`,
      };
    case "additionalProperties":
      return {
        pointer: at,
        message: `unknown property '${String(p.additionalProperty)}' (the loader rejects unknown keys here)`,
        expected: "only the documented properties",
      };
    case "unevaluatedProperties":
      return {
        pointer: at,
        message: `unknown property '${String(p.unevaluatedProperty)}'`,
        expected: "only the documented properties",
      };
    case "enum":
      return {
        pointer: at,
        message: `expected one of ${list(p.allowedValues as unknown[])}`,
        expected: `one of ${list(p.allowedValues as unknown[])}`,
      };
    case "const":
      return {
        pointer: at,
        message: `expected ${JSON.stringify(p.allowedValue)}`,
        expected: JSON.stringify(p.allowedValue),
      };
    case "type": {
      const t = Array.isArray(p.type) ? (p.type as string[]).join(" or ") : String(p.type);
      return { pointer: at, message: `expected ${article(t)}`, expected: t };
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return {
        pointer: at,
        message: `expected a number ${String(p.comparison)} ${String(p.limit)}`,
        expected: `${String(p.comparison)} ${String(p.limit)}`,
      };
    case "format":
      return { pointer: at, message: `expected a ${String(p.format)} string`, expected: `${String(p.format)} string` };
    case "pattern":
      return {
        pointer: at,
        message: `expected a string matching ${String(p.pattern)}`,
        expected: `string matching ${String(p.pattern)}`,
      };
    case "minItems":
    case "maxItems":
    case "minLength":
    case "maxLength":
    case "minProperties":
    case "maxProperties":
      return {
        pointer: at,
        message: `expected ${e.keyword.startsWith("min") ? "at least" : "at most"} ${String(p.limit)} ${e.keyword.endsWith("Items") ? "items" : e.keyword.endsWith("Length") ? "characters" : "properties"}`,
        expected: `${e.keyword} ${String(p.limit)}`,
      };
    case "discriminator": {
      const tag = String(p.tag);
      if (p.error === "mapping")
        return {
          pointer: `${at}/${tag}`,
          message: `unknown ${tag} ${JSON.stringify(p.tagValue)}`,
          expected: `a known '${tag}' value`,
        };
      return { pointer: at, message: `missing or non-string '${tag}'`, expected: `a string '${tag}'` };
    }
    case "oneOf":
    case "anyOf":
      return {
        pointer: at,
        message: "matches none of the allowed shapes",
        expected: "one of the shapes the schema allows",
      };
    case "not":
      return {
        pointer: at,
        message: "this value has a form the loader rejects (e.g. one field under two spellings, or a reserved value)",
        expected: "a value not matching the forbidden form",
      };
    case "false schema": {
      // a property or value a schema forbids at this place (e.g. an Agents SDK RunState field newer than its version)
      const name = at
        .slice(at.lastIndexOf("/") + 1)
        .replace(/~1/g, "/")
        .replace(/~0/g, "~");
      return {
        pointer: at,
        message: `'${name}' is not allowed here (the schema forbids it in this document, e.g. as newer than its version)`,
        expected: `no '${name}' here`,
      };
    }
    case "dependentRequired":
      return {
        pointer: at,
        message: `'${String(p.property)}' requires '${String(p.missingProperty)}'`,
        expected: `property '${String(p.missingProperty)}'`,
      };
    default:
      return { pointer: at, message: e.message ?? `fails ${e.keyword}`, expected: e.message ?? e.keyword };
  }
}

function article(t: string): string {
  if (t === "null") return "null";
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

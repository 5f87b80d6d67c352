/**
 * Plain command lines without yargs (cold start: importing yargs costs about as much as starting Node).
 *
 * A command's yargs builder is run against a recorder that notes its positionals and options. A command line
 * that uses only what the recorder understands — declared options with a plain type, `--name value`,
 * `--name=value`, one-letter aliases, booleans without a value, every required positional, no help, no `--` —
 * is parsed here into the same arguments object yargs would give the handler (camelCase and alias keys,
 * defaults). Anything else returns undefined and goes through yargs, which reports usage errors and prints help
 * as it always has. test/cli-quick.test.ts holds the two parsers to the same answers.
 */
import type { CommandDef } from "./command.js";

interface Spec {
  type?: string;
  alias?: string | string[];
  default?: unknown;
  choices?: readonly unknown[];
  array?: boolean;
  demandOption?: boolean | string;
}

/** Option keys the quick parser honours; a builder using any other key sends its command lines to yargs. */
const PLAIN_KEYS = new Set([
  "type",
  "alias",
  "default",
  "describe",
  "description",
  "choices",
  "array",
  "hidden",
  "defaultDescription",
  "group",
  "demandOption",
]);
/** Builder calls that only document; any other call (check, conflicts, coerce, middleware…) means "use yargs". */
const DOC_CALLS = new Set(["example", "epilogue", "epilog", "usage", "wrap"]);

interface Recorded {
  positionals: Map<string, Spec>;
  options: Map<string, Spec>;
  supported: boolean;
}

function record(def: CommandDef): Recorded {
  const r: Recorded = { positionals: new Map(), options: new Map(), supported: true };
  const plain = (spec: unknown) =>
    typeof spec === "object" && spec !== null && Object.keys(spec).every((k) => PLAIN_KEYS.has(k));
  const recorder: unknown = new Proxy(
    {},
    {
      get(_t, prop) {
        return (...a: unknown[]) => {
          if (prop === "positional" && plain(a[1])) r.positionals.set(String(a[0]), a[1] as Spec);
          else if (prop === "option" && typeof a[0] === "string" && plain(a[1])) r.options.set(a[0], a[1] as Spec);
          else if (!DOC_CALLS.has(String(prop))) r.supported = false;
          return recorder;
        };
      },
    },
  );
  try {
    def.builder(recorder as never);
  } catch {
    r.supported = false;
  }
  return r;
}

const camel = (s: string) => s.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The command's positionals from its usage string: `<a>` required, `[a]` optional, `..` variadic. */
function positionalsOf(command: string): Array<{ name: string; required: boolean; variadic: boolean }> | undefined {
  const out = [];
  for (const m of command.split(/\s+/).slice(1)) {
    const p = /^([<[])([\w-]+)(\.\.)?[>\]]$/.exec(m);
    if (!p) return undefined;
    out.push({ name: p[2]!, required: p[1] === "<", variadic: Boolean(p[3]) });
  }
  return out;
}

/** Choices that are all words yargs keeps as strings (not numbers, not true/false). */
const wordChoices = (spec: Spec): boolean =>
  Array.isArray(spec.choices) &&
  spec.choices.length > 0 &&
  spec.choices.every((c) => typeof c === "string" && /^[A-Za-z][\w-]*$/.test(c) && c !== "true" && c !== "false");

function value(spec: Spec, raw: string): { ok: true; v: unknown } | { ok: false } {
  if (spec.type === "string") return spec.choices && !spec.choices.includes(raw) ? { ok: false } : { ok: true, v: raw };
  if (spec.type === "number")
    return /^-?\d+(\.\d+)?$/.test(raw) && (!spec.choices || spec.choices.includes(Number(raw)))
      ? { ok: true, v: Number(raw) }
      : { ok: false };
  return { ok: false };
}

/** yargs' arguments for `argv` (which starts with the command name), or undefined when yargs must parse it. */
export function quickArgs(def: CommandDef, argv: readonly string[]): Record<string, unknown> | undefined {
  if (typeof def.command !== "string") return undefined;
  const name = def.command.split(/\s+/)[0]!;
  const pos = positionalsOf(def.command);
  if (!pos || argv[0] !== name) return undefined;
  const rec = record(def);
  if (!rec.supported) return undefined;
  const byName = new Map<string, [string, Spec]>();
  for (const [key, s] of rec.options) {
    // no type but words to choose from (migrate --on-conflict): yargs passes a chosen word through as the string
    const spec = s.type === undefined && wordChoices(s) ? { ...s, type: "string" } : s;
    rec.options.set(key, spec);
    if (spec.type !== "string" && spec.type !== "number" && spec.type !== "boolean") return undefined;
    if (spec.array && spec.type === "boolean") return undefined;
    byName.set(key.length === 1 ? `-${key}` : `--${key}`, [key, spec]);
    for (const a of ([] as string[]).concat(spec.alias ?? []))
      byName.set(a.length === 1 ? `-${a}` : `--${a}`, [key, spec]);
  }
  for (const p of pos) if (rec.positionals.get(p.name)?.type !== "string") return undefined;

  const given = new Map<string, unknown>();
  const rest: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === "-" || tok === "--" || tok === "") return undefined;
    if (!tok.startsWith("-")) {
      rest.push(tok);
      continue;
    }
    const eq = tok.startsWith("--") ? tok.indexOf("=") : -1;
    const flag = eq > 0 ? tok.slice(0, eq) : tok;
    const hit = byName.get(flag);
    // --no-<boolean> is yargs' negation of a declared boolean (given by its full name)
    const negated = !hit && eq < 0 && flag.startsWith("--no-") ? byName.get(`--${flag.slice(5)}`) : undefined;
    if (negated && negated[1].type === "boolean" && negated[0] === flag.slice(5)) {
      if (given.has(negated[0])) return undefined;
      given.set(negated[0], false);
      continue;
    }
    if (!hit) return undefined; // unknown, help, version, bundled short flags: yargs decides
    const [key, spec] = hit;
    if (spec.type === "boolean") {
      if (eq > 0 || given.has(key)) return undefined;
      given.set(key, true);
      continue;
    }
    const raw = eq > 0 ? tok.slice(eq + 1) : argv[++i];
    if (raw === undefined || (eq < 0 && raw.startsWith("-"))) return undefined;
    const v = value(spec, raw);
    if (!v.ok) return undefined;
    if (spec.array) {
      // yargs' arrays take every following value; only a value followed by an option or the end is unambiguous
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-")) return undefined;
      given.set(key, [...((given.get(key) as unknown[]) ?? []), v.v]);
    } else {
      if (given.has(key)) return undefined;
      given.set(key, v.v);
    }
  }

  const args: Record<string, unknown> = { _: [name], $0: "ckpt" };
  let k = 0;
  for (const p of pos) {
    if (p.variadic) {
      const vs = rest.slice(k);
      k = rest.length;
      if (p.required && vs.length === 0) return undefined;
      if (vs.length) args[p.name] = vs;
    } else if (k < rest.length) args[p.name] = rest[k++];
    else if (p.required) return undefined;
  }
  if (k < rest.length) return undefined; // extra positionals: yargs' strict mode reports them
  for (const [key, spec] of rec.options) {
    if (spec.demandOption && !given.has(key)) return undefined; // yargs says which one is missing
    const v = given.has(key) ? given.get(key) : spec.default;
    if (v === undefined) continue;
    for (const n of [key, ...([] as string[]).concat(spec.alias ?? [])]) {
      args[n] = v;
      args[camel(n)] = v;
    }
  }
  for (const p of pos) {
    const v = args[p.name];
    if (v === undefined) continue;
    // a positional with choices (schema <action>): a word outside them is yargs' to report, never a guess here
    const choices = rec.positionals.get(p.name)?.choices;
    if (choices && !(Array.isArray(v) ? v : [v]).every((x) => choices.includes(x))) return undefined;
    args[camel(p.name)] = v;
  }
  return args;
}

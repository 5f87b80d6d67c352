/** `--reporter sarif`: SARIF 2.1.0 — one run, the rules that fired, one result per issue with its region. */
import type { Reporter } from "./types.js";
import { ckptVersion } from "../../version.js";

const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";

/** A file name as a SARIF artifact URI (relative paths stay relative; spaces and the like percent-encoded). */
export function artifactUri(file: string): string {
  return file.split(/[\\/]/).map(encodeURIComponent).join("/");
}

export const sarifReporter: Reporter = (report) => {
  const rules = new Map<
    string,
    { id: string; shortDescription: { text: string }; defaultConfiguration: { level: string } }
  >();
  const results: unknown[] = [];
  const add = (
    ruleId: string,
    level: "error" | "warning",
    message: string,
    file: string,
    line?: number,
    column?: number,
    pointer?: string,
  ) => {
    if (!rules.has(ruleId))
      rules.set(ruleId, {
        id: ruleId,
        shortDescription: { text: describeRule(ruleId) },
        defaultConfiguration: { level },
      });
    const physicalLocation: Record<string, unknown> = { artifactLocation: { uri: artifactUri(file) } };
    if (line !== undefined) physicalLocation.region = { startLine: line, startColumn: column ?? 1 };
    results.push({
      ruleId,
      ruleIndex: [...rules.keys()].indexOf(ruleId),
      level,
      message: { text: pointer ? `${pointer}: ${message}` : message },
      locations: [
        {
          physicalLocation,
          ...(pointer ? { logicalLocations: [{ fullyQualifiedName: pointer, kind: "member" }] } : {}),
        },
      ],
    });
  };
  for (const f of report.files) {
    if (f.fatal)
      add(`input/${f.fatal.reason}`, "error", f.fatal.message, f.file, f.fatal.line, f.fatal.column, f.fatal.pointer);
    for (const i of f.issues)
      add(
        i.rule,
        i.severity === "error" || report.strict ? "error" : "warning",
        i.message,
        i.file,
        i.line,
        i.column,
        i.pointer,
      );
  }
  const log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "ckpt",
            version: ckptVersion(),
            informationUri: "https://ckpt.dev",
            rules: [...rules.values()],
          },
        },
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
};

function describeRule(id: string): string {
  const [kind, name] = id.split("/");
  if (kind === "schema") return `JSON Schema '${name}' check failed`;
  if (kind === "loader") return `the system's loader rejects this (${name})`;
  if (kind === "input") return `unreadable input (${name})`;
  return `lint: ${(name ?? id).replace(/-/g, " ")}`;
}

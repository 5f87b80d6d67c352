/** The reporters by name. */
import type { Reporter } from "./types.js";
import { textReporter } from "./text.js";
import { jsonReporter } from "./json.js";
import { junitReporter } from "./junit.js";
import { githubReporter } from "./github.js";
import { sarifReporter } from "./sarif.js";

export const REPORTERS: Record<string, Reporter> = {
  text: textReporter,
  json: jsonReporter,
  junit: junitReporter,
  github: githubReporter,
  sarif: sarifReporter,
};
export const REPORTER_NAMES = Object.keys(REPORTERS);
export * from "./types.js";

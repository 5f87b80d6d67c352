/**
 * Where the package's own files are, from the CLI's modules: src/cli/ and dist/cli/ (and dist/bundle/, the bundled
 * CLI) are each one folder below a folder of the package, so `../../schemas/` is the package's schemas/.
 */
import { fileURLToPath } from "node:url";

export const SCHEMAS_DIR = fileURLToPath(new URL("../../schemas/", import.meta.url));

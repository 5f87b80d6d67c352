// Builds dist/ after `npm install` / `npm ci` in a checkout of ckpt (src/ and the dev dependencies present). An
// installed package (the tarball `npm pack` makes: dist/ included, no src/) has nothing to build and skips; so does
// any ckpt that sits in a node_modules folder (a dependency of another project, a global install), whatever files it
// holds: an installed package never runs the TypeScript build.
//
// Why postinstall and not `prepare`: npm runs `prepare` on `npm pack` too, and prints its banner on standard
// output; pre-commit installs a node hook with `npm pack` and takes that output as the tarball's file name, so a
// `prepare` script breaks the ckpt-validate hook. The build's own output goes to standard error.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const installed = root.split(sep).includes("node_modules");
if (!installed && existsSync(join(root, "src")) && existsSync(join(root, "node_modules", "typescript"))) {
  execSync("npm run build", { cwd: root, stdio: ["ignore", 2, 2] });
}

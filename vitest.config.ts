import { defineConfig } from "vitest/config";

export default defineConfig({
  // vite strips TypeScript from .ts/.mts by default; src/view/client*.cts are TypeScript too (CommonJS output)
  oxc: { include: /\.(m?ts|cts|[jt]sx)$/ },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two test files at a time. Vitest's default is one fewer than the cores (one here, on a 2-core machine), but
    // most of a file's time is spent waiting on other processes (ckpt itself, Node 22 peers, Chromium, PostgreSQL,
    // Redis), so a second file in parallel fills that wait: measured on the 2-core machine, interleaved runs of 40
    // files took 296/506 s with one worker against 266/404 s with two (#36's suite-time line).
    maxWorkers: 2,
    // one temporary folder per run, removed at its end (test/helpers/tmp-root.ts), and the engine conformance report
    // (layout × test), printed at the end of a run that ran test/conformance/
    globalSetup: ["test/helpers/tmp-root.ts", "test/conformance/report.ts"],
  },
});

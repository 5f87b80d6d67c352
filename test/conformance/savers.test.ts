import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { saverConformance } from "./saver.js";
import { openSaver } from "../../src/savers/index.js";
import { resetMemorySavers } from "../../src/savers/memory.js";
import { deleteRedisKeys } from "../helpers/redis-keys.js";

const run = randomBytes(4).toString("hex");
const REDIS = process.env.CKPT_TEST_REDIS ?? "redis://127.0.0.1:6379";
const PG = process.env.CKPT_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/test";

saverConformance({
  name: "memory",
  open: () => openSaver(`memory:conformance-${run}`),
  cleanup: async () => resetMemorySavers(),
});

const dir = mkdtempSync(join(tmpdir(), "ckpt-file-saver-"));
saverConformance({
  name: "file",
  open: () => openSaver(`file:${dir}`),
  cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  fileLayout: true,
});

const sqliteDir = mkdtempSync(join(tmpdir(), "ckpt-sqlite-saver-"));
saverConformance({
  name: "sqlite",
  open: () => openSaver(`sqlite:${join(sqliteDir, "c.db")}`),
  cleanup: async () => rmSync(sqliteDir, { recursive: true, force: true }),
});

const prefix = `ckpt-test-${run}:`;
saverConformance({
  name: "redis",
  open: () => openSaver(`${REDIS}?prefix=${encodeURIComponent(prefix)}`),
  async cleanup() {
    await deleteRedisKeys(prefix, REDIS);
  },
});

const schema = `ckpt_test_${run}`;
saverConformance({
  name: "postgres",
  open: () => openSaver(`${PG}?schema=${schema}`),
  async cleanup() {
    const pg = (await import("pg")).default;
    const c = new pg.Client({ connectionString: PG });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  },
});

/**
 * The PostgreSQL pass runs only the test files that can reach the store (store-files.cjs). A file
 * that opens a database and were left out would test SQLite twice and PostgreSQL never: every
 * file that starts an app, a service or a store must be in the list.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const { storeTestFiles } = require("../../../test/support/store-files.cjs") as { storeTestFiles: (root: string) => string[] };

const ROOT = path.resolve(__dirname, "..");
const SOURCES = path.resolve(__dirname, "../../../test");
const OPENS_A_STORE = /\b(startTestApp|migratedDatabase|freshDatabase|openStore|startService|runToExit)\(/;

const sources = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith(".test.ts") ? [p] : [];
  });

describe("test files on PostgreSQL", () => {
  it("runs every file that opens a store, an app or a service", () => {
    const chosen = new Set(storeTestFiles(ROOT).map((f) => path.resolve(f)));
    const missing = sources(SOURCES)
      .filter((src) => OPENS_A_STORE.test(fs.readFileSync(src, "utf8")))
      .map((src) => path.join(ROOT, path.relative(SOURCES, src)).replace(/\.ts$/, ".js"))
      .filter((compiled) => !chosen.has(compiled));
    assert.deepEqual(missing, []);
  });

  it("leaves out files that never reach the store, like the speech service's", () => {
    const chosen = storeTestFiles(ROOT).map((f) => path.relative(ROOT, f));
    assert.ok(!chosen.includes(path.join("tts", "audio.test.js")));
    assert.ok(chosen.includes(path.join("runtime", "care", "core", "pipeline", "triggers", "cts-window.trigger.test.js")));
  });
});

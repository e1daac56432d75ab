/**
 * The compiled-code cache `npm start` turns on (Node 20; Node 22 has its own): in a child
 * process, as main.ts loads it, modules behave as Node's own loader makes them (`require`,
 * `require.resolve`, `__dirname`, stack traces, a `#!` line, `import()`), the second start
 * takes their code from the cache, a changed file is never served stale, and a damaged cache
 * is ignored.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const CACHE_MODULE = path.resolve(__dirname, "../../../runtime/app/compile-cache.js");
const hasOwnCache = typeof (require("node:module") as { enableCompileCache?: unknown }).enableCompileCache === "function";

interface ChildOutput {
  installed: boolean;
  a: { dir: string; file: string; b: string; resolved: string; paths: boolean; mainIsChild: boolean; stack: string };
  shebang: string;
  imported: string;
  stats: { hits: number; compiled: number; rejected: number; leftToNode: number } | null;
}

describe("the compiled-code cache (npm start on Node 20)", function () {
  this.timeout(30_000);
  let dir: string;
  let cacheFile: string;

  before(function () {
    if (hasOwnCache) {
      process.stdout.write("\n    SKIPPED: this Node has its own compile cache, which main.ts turns on instead\n");
      this.skip();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-compile-cache-"));
    cacheFile = path.join(dir, "cache", "v8.bin");
    fs.writeFileSync(
      path.join(dir, "a.js"),
      [
        "const b = require('./b');",
        "function where() { return new Error('here').stack; }",
        "module.exports = { dir: __dirname, file: __filename, b: b.v, resolved: require.resolve('./b'), paths: Array.isArray(require.resolve.paths('./b')), mainIsChild: require.main === module.parent, stack: where() };",
      ].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "b.js"), "exports.v = 'bb';\n");
    fs.writeFileSync(path.join(dir, "shebang.js"), "#!/usr/bin/env node\nmodule.exports = 'shebang';\n");
    fs.writeFileSync(path.join(dir, "imp.js"), "module.exports = () => import('node:path').then((m) => typeof m.join);\n");
    fs.writeFileSync(
      path.join(dir, "child.js"),
      [
        `const { installCompileCache, saveCompileCache } = require(${JSON.stringify(CACHE_MODULE)});`,
        "const installed = !installCompileCache();", // already on: importing the module turned it on, as in main.ts
        "const a = require('./a');",
        "const shebang = require('./shebang');",
        "require('./imp')().then((imported) => {",
        "  const stats = saveCompileCache();",
        "  process.stdout.write(JSON.stringify({ installed, a, shebang, imported, stats }));",
        "});",
      ].join("\n"),
    );
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (): ChildOutput =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(dir, "child.js")], {
        env: { ...process.env, CAREFLOW_COMPILE_CACHE_FILE: cacheFile, NODE_DISABLE_COMPILE_CACHE: "" },
        encoding: "utf8",
      }),
    ) as ChildOutput;

  it("loads modules as Node does, and the next start takes their code from the cache", () => {
    const first = start();
    assert.equal(first.installed, true);
    assert.equal(first.a.dir, dir);
    assert.equal(first.a.file, path.join(dir, "a.js"));
    assert.equal(first.a.b, "bb");
    assert.equal(first.a.resolved, path.join(dir, "b.js"));
    assert.equal(first.a.paths, true);
    assert.equal(first.a.mainIsChild, true, "require.main is the process's main module");
    assert.match(first.a.stack, /a\.js:2:/, "stack traces name the file and line");
    assert.equal(first.shebang, "shebang");
    assert.equal(first.imported, "function", "a module calling import() is left to Node and works");
    assert.ok(first.stats && first.stats.compiled === 3 && first.stats.hits === 0, JSON.stringify(first.stats));
    assert.equal(first.stats.leftToNode, 1, "imp.js");
    assert.ok(fs.existsSync(cacheFile), "written");

    const second = start();
    assert.deepEqual({ ...second, stats: null }, { ...first, stats: null }, "the same modules, the same behaviour");
    assert.ok(second.stats && second.stats.hits === 3 && second.stats.compiled === 0, JSON.stringify(second.stats));
  });

  it("never serves the code of a file that changed since, and ignores a damaged cache", () => {
    start();
    fs.writeFileSync(path.join(dir, "b.js"), "exports.v = 'cc';\n"); // the same length: only the text differs
    const changed = start();
    assert.equal(changed.a.b, "cc");
    assert.ok(changed.stats && changed.stats.compiled === 1, JSON.stringify(changed.stats));
    fs.writeFileSync(cacheFile, Buffer.from("not a cache at all"));
    const damaged = start();
    assert.equal(damaged.a.b, "cc");
    assert.ok(damaged.stats && damaged.stats.hits === 0 && damaged.stats.compiled === 3, JSON.stringify(damaged.stats));
  });
});

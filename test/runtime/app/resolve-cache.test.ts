/**
 * The resolution cache `npm start` turns on: in a child process, `require` finds the same
 * files as Node's loader, the next start takes them from the cache, a new install of the
 * dependencies (or a new build) drops it, a damaged cache is ignored, and `require.resolve`
 * with its own `paths` is left to Node.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const CACHE_MODULE = path.resolve(__dirname, "../../../runtime/app/resolve-cache.js");

interface ChildOutput {
  b: string;
  bPath: string;
  pkg: string;
  pkgPath: string;
  viaPaths: string;
  stats: { hits: number; misses: number } | null;
}

describe("the resolution cache (npm start)", function () {
  this.timeout(30_000);
  let dir: string;
  let cacheFile: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-resolve-cache-"));
    cacheFile = path.join(dir, "cache", "resolved.json");
    fs.writeFileSync(path.join(dir, "b.js"), "exports.v = 'bb';\n");
    const pkg = path.join(dir, "node_modules", "pkg");
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "pkg", main: "index.js" }));
    fs.writeFileSync(path.join(pkg, "index.js"), "module.exports = 'index';\n");
    fs.writeFileSync(path.join(pkg, "other.js"), "module.exports = 'other';\n");
    fs.writeFileSync(path.join(dir, "node_modules", ".package-lock.json"), "{}");
    fs.writeFileSync(
      path.join(dir, "child.js"),
      [
        `const { installResolveCache, saveResolveCache, resolutionStamp } = require(${JSON.stringify(CACHE_MODULE)});`,
        // Switched off at import by the environment, then on with this folder as the repository.
        `installResolveCache(${JSON.stringify(cacheFile)}, resolutionStamp(__dirname));`,
        "const out = { b: require('./b').v, bPath: require.resolve('./b'), pkg: require('pkg'), pkgPath: require.resolve('pkg'), viaPaths: require.resolve('pkg', { paths: [__dirname] }) };",
        "process.stdout.write(JSON.stringify({ ...out, stats: saveResolveCache() }));",
      ].join("\n"),
    );
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `nodeFlags`: what Node is started with (`--conditions` changes which file a package exports). */
  const start = (nodeFlags: string[] = []): ChildOutput =>
    JSON.parse(
      execFileSync(process.execPath, [...nodeFlags, path.join(dir, "child.js")], {
        env: { ...process.env, NODE_DISABLE_COMPILE_CACHE: "1" },
        encoding: "utf8",
      }),
    ) as ChildOutput;

  it("finds what Node finds, and the next start takes it from the cache", () => {
    const first = start();
    assert.deepEqual(
      { ...first, stats: null },
      {
        b: "bb",
        bPath: path.join(dir, "b.js"),
        pkg: "index",
        pkgPath: path.join(dir, "node_modules", "pkg", "index.js"),
        viaPaths: path.join(dir, "node_modules", "pkg", "index.js"),
        stats: null,
      },
    );
    // './b' and 'pkg' (each asked twice: the second time within the same start is a hit).
    assert.ok(first.stats && first.stats.misses === 2, JSON.stringify(first.stats));
    assert.ok(fs.existsSync(cacheFile), "written");

    const second = start();
    assert.deepEqual({ ...second, stats: null }, { ...first, stats: null });
    assert.ok(second.stats && second.stats.misses === 0 && second.stats.hits === 4, JSON.stringify(second.stats));
  });

  it("is dropped when Node is started with other flags", () => {
    start();
    const flagged = start(["--conditions=careflow-test"]);
    assert.equal(flagged.pkg, "index");
    assert.ok(flagged.stats && flagged.stats.misses === 2, JSON.stringify(flagged.stats));
    const again = start(["--conditions=careflow-test"]);
    assert.ok(again.stats && again.stats.misses === 0, JSON.stringify(again.stats));
  });

  it("is dropped when the dependencies are installed again, and ignored when damaged", () => {
    start();
    // An install that changed a package: npm rewrites its lock file in node_modules.
    fs.writeFileSync(path.join(dir, "node_modules", "pkg", "package.json"), JSON.stringify({ name: "pkg", main: "other.js" }));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(dir, "node_modules", ".package-lock.json"), later, later);
    const installed = start();
    assert.equal(installed.pkg, "other");
    assert.equal(installed.pkgPath, path.join(dir, "node_modules", "pkg", "other.js"));
    assert.ok(installed.stats && installed.stats.misses === 2, JSON.stringify(installed.stats));

    fs.writeFileSync(cacheFile, "not a cache at all");
    const damaged = start();
    assert.equal(damaged.pkg, "other");
    assert.equal(damaged.b, "bb");
    assert.ok(damaged.stats && damaged.stats.misses === 2, JSON.stringify(damaged.stats));
  });
});

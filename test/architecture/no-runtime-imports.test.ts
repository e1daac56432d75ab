/**
 * `nodes/` stands under the app: handlers reach the app only through the care services of
 * `nodes/_kit/care-services.ts`. This reads every TypeScript file under `nodes/` and fails on
 * an import (static, dynamic, `require`, or `export … from`) of anything under `runtime/`.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

const REPO = path.resolve(__dirname, "../../..");
const NODES = path.join(REPO, "nodes");
const RUNTIME = path.join(REPO, "runtime");

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return tsFiles(full);
    return e.isFile() && e.name.endsWith(".ts") ? [full] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** Every module specifier the file names. */
export function specifiers(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => m[1]);
}

const intoRuntime = (file: string, specifier: string): boolean => {
  if (!specifier.startsWith(".")) return false;
  const target = path.resolve(path.dirname(file), specifier);
  return target === RUNTIME || target.startsWith(RUNTIME + path.sep);
};

describe("architecture: nodes/ does not import runtime/", () => {
  it("finds the import forms it checks", () => {
    const source = [
      'import type { A } from "../../runtime/context";',
      'import { b } from "./b";',
      'export { c } from "../c";',
      'const d = require("../../runtime/d");',
      'import "../../runtime/side-effect";',
      'const e = await import("../../runtime/e");',
    ].join("\n");
    assert.deepEqual(specifiers(source), ["../../runtime/context", "./b", "../c", "../../runtime/d", "../../runtime/side-effect", "../../runtime/e"]);
    const file = path.join(NODES, "_kit", "x.ts");
    assert.deepEqual(
      specifiers(source).filter((s) => intoRuntime(file, s)),
      ["../../runtime/context", "../../runtime/d", "../../runtime/side-effect", "../../runtime/e"],
    );
    assert.equal(intoRuntime(path.join(NODES, "steps", "x", "x.handler.ts"), "../../runtime/y"), false, "nodes/runtime is not runtime/");
  });

  it("no file under nodes/ imports from runtime/", () => {
    const files = tsFiles(NODES);
    assert.ok(files.length > 50, `expected the node folders under ${NODES}, found ${files.length} files`);
    const offending = files.flatMap((file) =>
      specifiers(fs.readFileSync(file, "utf8"))
        .filter((s) => intoRuntime(file, s))
        .map((s) => `${path.relative(REPO, file)} imports ${s}`),
    );
    assert.deepEqual(offending, [], "handlers use ctx.services (nodes/_kit/care-services.ts), never runtime/");
  });
});

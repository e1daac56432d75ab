/**
 * Whether the registry sees every handler must not depend on which module Node loads first.
 * Once, a value loop (registry → notification handler → notify service → dispatch →
 * registry) let the registry read a handler that was still loading, and a full run failed
 * with "notification cannot run yet: it needs a handler" while the same test passed alone.
 * Each case loads the compiled modules in a fresh process, in an order of its own, then
 * checks that every node folder with a handler file has its handler in the registry.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const DIST = path.resolve(__dirname, "../..");
const REGISTRY = path.join(DIST, "nodes", "registry.generated.js");

/** Every compiled handler module, sorted: steps, filters, channels. */
const handlerModules = (): string[] =>
  ["steps", "filters", "channels"].flatMap((folder) => {
    const dir = path.join(DIST, "nodes", folder);
    return fs
      .readdirSync(dir)
      .sort()
      .map((type) => path.join(dir, type, `${type}.handler.js`))
      .filter((f) => fs.existsSync(f));
  });

/** In a fresh process: require `first` in order, then the registry; the registry's handler-less entries whose folder has a handler file. */
function missingAfterLoading(first: readonly string[]): string[] {
  const script = `
    const fs = require("node:fs");
    const path = require("node:path");
    for (const f of ${JSON.stringify(first)}) require(f);
    const { registry } = require(${JSON.stringify(REGISTRY)});
    const nodes = ${JSON.stringify(path.join(DIST, "nodes"))};
    const missing = [];
    for (const [folder, list] of [["steps", registry.steps], ["filters", registry.filters], ["channels", registry.channels]]) {
      for (const e of list) {
        const file = path.join(nodes, folder, e.spec.type, e.spec.type + ".handler.js");
        if (fs.existsSync(file) && typeof e.handler !== "function") missing.push(folder + "/" + e.spec.type);
      }
    }
    process.stdout.write(JSON.stringify(missing));
  `;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 30_000 })) as string[];
}

describe("architecture: the registry sees every handler, whatever loads first", function () {
  this.timeout(60_000);

  it("there are handlers to check", () => {
    assert.ok(handlerModules().length >= 20, `compiled handlers under ${DIST}/nodes`);
  });

  it("the registry first", () => {
    assert.deepEqual(missingAfterLoading([]), []);
  });

  it("every handler module first (the notification handler among them)", () => {
    assert.deepEqual(missingAfterLoading(handlerModules()), []);
  });

  it("the notification handler alone first", () => {
    assert.deepEqual(missingAfterLoading([path.join(DIST, "nodes", "steps", "notification", "notification.handler.js")]), []);
  });

  it("the runtime's channel layer and care services first", () => {
    const runtime = ["care/services/notify/dispatch.js", "care/services/notify/notify.service.js", "care/services/care-services.js"].map((f) =>
      path.join(DIST, "runtime", f),
    );
    assert.deepEqual(missingAfterLoading(runtime), []);
  });
});

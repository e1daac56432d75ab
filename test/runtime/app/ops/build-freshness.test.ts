/** `npm start` runs the build as it is: a build older than a source is said at start, by name. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { staleBuildReason, writeBuildStamp } from "../../../../runtime/app/ops/build-freshness";

describe("build freshness (npm start compiles nothing)", () => {
  let repo: string;
  const at = (file: string, secondsAgo: number) => {
    const p = path.join(repo, file);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, "");
    const t = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(p, t, t);
  };
  beforeEach(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-freshness-"));
  });
  afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

  it("is current when every source is older than both builds", async () => {
    at("runtime/app/main.ts", 100);
    at("nodes/steps/wait/wait.node.ts", 90);
    at("dist/.build-stamp", 10);
    assert.equal(await staleBuildReason(repo, path.join(repo, "dist")), null);
  });

  it("names the source changed after the last build", async () => {
    at("runtime/app/main.ts", 100);
    at("nodes/steps/wait/wait.handler.ts", 5);
    at("dist/.build-stamp", 10);
    assert.equal(await staleBuildReason(repo, path.join(repo, "dist")), "nodes/steps/wait/wait.handler.ts changed after the last build");
  });

  it("says when there is no complete build, and ignores tests and non-TypeScript files", async () => {
    at("dist/.tsbuildinfo", 10); // tsc's own file is no sign that the whole build finished
    assert.equal(await staleBuildReason(repo, path.join(repo, "dist")), "dist/ holds no complete build");
    writeBuildStamp(path.join(repo, "dist"));
    at("test/x.test.ts", 1);
    at("runtime/app/page.html", 1);
    assert.equal(await staleBuildReason(repo, path.join(repo, "dist")), null);
  });
});

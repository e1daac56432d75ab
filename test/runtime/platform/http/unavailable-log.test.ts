/**
 * A 503 (a part not configured or not running) is logged as one warning line without a
 * stack: a caller that may ask again and again (the web app's key among them) must not fill
 * the log with errors.
 */
import assert from "node:assert/strict";
import { captureLog, type CapturedLog } from "../../../support/capture-log";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

describe("the log of a 503", function () {
  this.timeout(60_000);
  let t: TestApp;
  let logs: CapturedLog;
  before(async () => {
    logs = captureLog("info");
    t = await startTestApp({ log: logs.log }); // no Node-RED: the engine is not running
  });
  after(() => t.close());

  it("logs a rule run the engine cannot start (the MCP key) as one warning line without a stack", async () => {
    const rule = (await t.post("/api/v1/rules", { name: "Unavailable", trigger_type: "manual" })).body.id;
    const before = logs.lines.length;
    for (let i = 0; i < 3; i++) {
      const res = await t.request("POST", `/api/v1/rules/${rule}/execute`, { key: KEYS.mcp });
      assert.equal(res.status, 503, res.text);
      assert.match(res.body.detail, /not running/);
    }
    const lines = logs.lines.slice(before).filter((l) => l.path !== undefined || Number(l.level) >= 50);
    assert.equal(lines.length, 3, JSON.stringify(lines));
    for (const line of lines) {
      assert.equal(line.level, 40, JSON.stringify(line));
      assert.equal(line.path, `/api/v1/rules/${rule}/execute`);
      assert.match(String(line.msg), /pipeline engine is not running/);
      assert.equal(line.err, undefined, "no error object, so no stack");
      assert.doesNotMatch(JSON.stringify(line), /\n\s+at /);
    }
  });
});

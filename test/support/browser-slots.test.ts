import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { giveBackSlot, tryTakeSlot } from "./browser-slots";
const { spreadBrowserFiles } = require("../../../test/support/file-order.cjs") as { spreadBrowserFiles(files: string[]): string[] };

describe("test support: browser slots and file order", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-slots-test-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("lets only as many files hold a slot as there are slots, and the next take one given back", () => {
    const [a, b] = [process.pid, process.ppid];
    const first = tryTakeSlot(dir, 1, a);
    assert.ok(first);
    assert.equal(tryTakeSlot(dir, 1, b), undefined);
    giveBackSlot(first, b); // not its slot: nothing changes
    assert.equal(tryTakeSlot(dir, 1, b), undefined);
    giveBackSlot(first, a);
    assert.ok(tryTakeSlot(dir, 1, b));
  });

  it("takes over the slot of a holder that died", () => {
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    fs.writeFileSync(path.join(dir, "slot-0"), dead);
    assert.equal(tryTakeSlot(dir, 1, process.pid), path.join(dir, "slot-0"));
    assert.equal(fs.readFileSync(path.join(dir, "slot-0"), "utf8"), String(process.pid));
  });

  it("spreads the browser files over the list's first part, every file once", () => {
    const files = [
      ...Array.from({ length: 4 }, (_, i) => `dist/test/browser/b${i}.test.js`),
      ...Array.from({ length: 16 }, (_, i) => `dist/test/x/o${i}.test.js`),
    ];
    const out = spreadBrowserFiles(files);
    assert.deepEqual([...out].sort(), [...files].sort());
    const at = out.flatMap((f, i) => (f.includes("/browser/") ? [i] : []));
    assert.deepEqual(at, [0, 3, 6, 9]);
  });
});

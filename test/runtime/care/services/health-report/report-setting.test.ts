/** `health.daily_report_at`: 09:00 unless set; a time that is not one stops the start, naming the setting. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSettings, loadRunConfig, SettingsError } from "../../../../../runtime/platform/config/load-settings";

describe("health.daily_report_at", () => {
  it("defaults to 09:00 and takes a local time", () => {
    assert.equal(buildSettings({}).health.daily_report_at, "09:00");
    assert.equal(buildSettings({ health: { daily_report_at: "07:30" } }).health.daily_report_at, "07:30");
  });

  it("refuses 25:00 and other non-times at start with a message naming the setting", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-daily-"));
    try {
      for (const bad of ["25:00", "9:00", "09:60", "nine"]) {
        const file = path.join(dir, "settings.json");
        fs.writeFileSync(file, JSON.stringify({ health: { daily_report_at: bad } }));
        assert.throws(
          () => loadRunConfig({ CAREFLOW_SETTINGS: file }),
          (err: unknown) => err instanceof SettingsError && /health\.daily_report_at: a local time as HH:MM/.test(err.message),
          bad,
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

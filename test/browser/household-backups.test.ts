/**
 * The Household page's Backups section (issue 46 §2, docs/backups.md) in a real Chromium: an
 * admin sees no backup yet and the schedule, presses "Back up now" (the button is disabled while
 * it runs), sees the new backup at the top with its size and downloads it through its link (the
 * file itself: gzip's first bytes, the size listed); a failed backup is said beside the button
 * and as the section's state; a caregiver reads the last backup's time and state with neither
 * the button nor the downloads. Screenshots: test-output/screenshots/household-backups-*.png.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import type { Page, Route } from "playwright-core";
import { assertAccessible } from "../support/a11y";
import { startEditorSession, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

/** The page's size words (hp-backups.ts), for a size the API gave. */
const sizeWords = (bytes: number): string => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`);
const TODAY_AT = String.raw`today at \d{1,2}:\d{2}(?: [AP]M)?`;

describe("browser: the Household page's Backups section", function () {
  this.timeout(180_000);
  let s: EditorSession;
  let page: Page;

  const openHealth = async (key: string): Promise<Page> => {
    const p = await (await s.browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    p.on("pageerror", (e) => s.pageErrors.push(e.message));
    await p.goto(`${s.t.baseUrl}/household/`);
    await p.locator("#key").fill(key);
    await p.locator("#sign-in-form button[type=submit]").click();
    await p.locator("body[data-signed-in=true]").waitFor({ state: "attached" });
    // An empty household offers the admin the guided set-up first; a tab leaves it.
    await p.locator("#tabs [data-tab=health]").click();
    await p.locator("#parts tbody tr").first().waitFor();
    return p;
  };

  before(async function () {
    s = await startEditorSession(this, { settings: { backup: { schedule: "30 3 * * *" } } });
  });
  after(async () => {
    await s?.close();
  });

  it("shows an admin that there is no backup yet, and when the next is due", async () => {
    page = await openHealth(KEYS.admin);
    await page.locator("#backup-last", { hasText: "No backup yet." }).waitFor();
    const status = (await s.t.get("/api/v1/admin/backups")).body;
    assert.equal(status.next_at !== null, true);
    assert.match(await page.locator("#backup-schedule").innerText(), /^Backups are made every day; the next is (today|tomorrow) at \d{1,2}:\d{2}( [AP]M)?\.$/);
    assert.equal(await page.locator("#backups tbody tr.empty").innerText(), "No backup is kept yet.");
    assert.match(await page.locator("#tab-health").innerText(), /How to restore: stop careflow, then run npm run restore -- FILE/);
    await s.screenshot(page, "household-backups-none");
  });

  it("backs up now: the button waits, then the new backup is at the top with its size and the last backup says so", async () => {
    // The POST is held until the page has been seen waiting, so the disabled button is not a race.
    const held = new Promise<Route>(
      (resolve) => void page.route("**/api/v1/admin/backups", (route) => (route.request().method() === "POST" ? resolve(route) : route.continue())),
    );
    const button = page.locator("#backup-now");
    await button.click();
    const route = await held;
    assert.equal(await button.isDisabled(), true, "disabled while it runs");
    assert.match(await page.locator("#backup-now-status").innerText(), /^Backing up/);
    await route.continue();
    await page.locator("#backups tbody tr[data-backup]").first().waitFor();
    await page.unroute("**/api/v1/admin/backups");
    assert.equal(await button.isDisabled(), false);

    const status = (await s.t.get("/api/v1/admin/backups")).body;
    const made = status.backups[0] as { name: string; size_bytes: number; made_by: string };
    assert.equal(made.made_by, "manual");
    const top = page.locator("#backups tbody tr").first();
    assert.equal(await top.getAttribute("data-backup"), made.name);
    const cells = await top.locator("td").allInnerTexts();
    assert.match(cells[0], new RegExp(`^T${TODAY_AT.slice(1)}$`), "the time said as the family says it");
    assert.deepEqual(cells.slice(1, 3), [sizeWords(made.size_bytes), "By hand"]);
    assert.equal(await page.locator("#backup-now-status").innerText(), `Backed up: ${sizeWords(made.size_bytes)}.`);
    assert.match(
      await page.locator("#backup-last").innerText(),
      new RegExp(`^Last backup: ${TODAY_AT}, ${sizeWords(made.size_bytes).replace(".", "\\.")}\\.$`),
    );
    assert.equal(await page.locator("#backup-last").getAttribute("data-colour"), "green");
    // The board beside it agrees at once.
    await page.locator('#parts tr[data-part="backup"][data-state="ok"]').waitFor();
    await s.screenshot(page, "household-backups-made");
    await assertAccessible(page, "the Backups section with a backup", { include: ["#backups-section"] });
  });

  it("downloads a backup through its link, with the key in a header and not in the address", async () => {
    const name = (await page.locator("#backups tbody tr[data-backup]").first().getAttribute("data-backup"))!;
    const size = ((await s.t.get("/api/v1/admin/backups")).body.backups[0] as { size_bytes: number }).size_bytes;
    const [download, response] = await Promise.all([
      page.waitForEvent("download"),
      page.waitForResponse((r) => r.url().endsWith(`/api/v1/admin/backups/${name}`)),
      page.locator(`#backups tr[data-backup="${name}"] a`).click(),
    ]);
    assert.equal(response.status(), 200);
    assert.equal(response.headers()["content-type"], "application/octet-stream");
    assert.equal(new URL(response.url()).search, "", "no key in the address");
    assert.equal(download.suggestedFilename(), name);
    const file = await download.path();
    const bytes = fs.readFileSync(file);
    assert.equal(bytes.length, size);
    assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], "a gzip stream, as every backup is");
    assert.equal(await page.locator("#notice").innerText(), "");
  });

  it("says a failed backup beside the button and as the section's state, until one works", async () => {
    const before = await page.locator("#backups tbody tr[data-backup]").first().getAttribute("data-backup");
    const settings = s.t.app.ctx.settings.backup;
    settings.dir = "/dev/null/backups"; // a folder that cannot be made, as a full or missing disk
    try {
      await page.locator("#backup-now").click();
      await page.locator("#backup-now-error", { hasText: "The backup was not made" }).waitFor();
      assert.match(await page.locator("#backup-now-error").innerText(), /^The backup was not made: ENOTDIR: not a directory, mkdir '\/dev\/null\/backups'$/);
      // Then the section is read again: its state says so too.
      await page.locator("#backup-problem", { hasText: "failed" }).waitFor();
      assert.match(await page.locator("#backup-problem").innerText(), new RegExp(`^The backup ${TODAY_AT} failed: ENOTDIR`));
      assert.equal(await page.locator("#backup-last").getAttribute("data-colour"), "", "the last that worked is no longer said in green");
      await page.locator('#parts tr[data-part="backup"][data-state="down"]').waitFor();
      await s.screenshot(page, "household-backups-failed");
      await assertAccessible(page, "the Backups section after a failure", { include: ["#backups-section"] });
    } finally {
      settings.dir = null;
    }
    await page.locator("#backup-now").click();
    await page.locator("#backup-problem:empty").waitFor({ state: "attached" });
    // The new one at the top; the day's older one pruned (the newest of each day is kept).
    await page.locator(`#backups tbody tr[data-backup]:not([data-backup="${before}"])`).first().waitFor();
    assert.equal(await page.locator("#backups tbody tr[data-backup]").count(), 1);
    assert.equal(await page.locator("#backup-now-error").innerText(), "");
    assert.equal(await page.locator("#backup-problem").innerText(), "");
    assert.deepEqual(s.pageErrors, []);
  });

  it("shows a caregiver the last backup's time and state, with neither the button nor the downloads", async () => {
    const other = await openHealth(KEYS.caregiver);
    await other.locator("#backup-last", { hasText: "Last backup:" }).waitFor();
    const last = (await s.t.get("/api/v1/backup-status", KEYS.caregiver)).body.last_ok as { size_bytes: number };
    assert.match(
      await other.locator("#backup-last").innerText(),
      new RegExp(`^Last backup: ${TODAY_AT}, ${sizeWords(last.size_bytes).replace(".", "\\.")}\\.$`),
    );
    assert.equal(await other.locator("#backup-last").getAttribute("data-colour"), "green");
    assert.equal(await other.locator("#backup-now").isVisible(), false);
    assert.equal(await other.locator("#backups").isVisible(), false);
    assert.equal(await other.locator("#backups a").count(), 0, "no download link, even hidden");
    assert.equal(await other.locator("#backups-section .admin-only-note").innerText(), "Only an administrator can make a backup or download one.");
    assert.equal(await other.locator("#notice").innerText(), "", "no refusal shown");
    await s.screenshot(other, "household-backups-caregiver");
    await assertAccessible(other, "the Backups section for a caregiver", { include: ["#backups-section"] });
    assert.deepEqual(s.pageErrors, []);
  });
});

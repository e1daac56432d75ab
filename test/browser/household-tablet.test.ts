/**
 * The senior's tablet on the Household page's Devices tab (issue 43 §1) in a real Chromium, as
 * in a real household: the settings file has no web app key. The admin makes a new tablet link
 * (a web app key, shown once with its QR code), a second page opens the exact link read off the
 * page as the tablet, and the tablet appears in the list of tablets connected now, with its key's
 * name; Done takes the link off the page for good. A caregiver reads the connected list with no
 * key on the page; the tablet closed, the list empties. Screenshots:
 * test-output/screenshots/household-tablet-*.png.
 */
import assert from "node:assert/strict";
import jsQR from "jsqr";
import sharp from "sharp";
import type { Browser, Page } from "playwright-core";
import type { NetworkInterfaces } from "../../runtime/platform/http/household-address";
import { assertAccessible } from "../support/a11y";
import path from "node:path";
import { chromiumOrSkip, launchTabletBrowser, SCREENSHOT_DIR, startEditorSession, type EditorSession } from "../support/browser";
import { KEYS, testAuthSettings } from "../support/test-app";

declare const window: { careflowWebApp?: { state: string }; localStorage: { getItem(k: string): string | null } };

/** A box with no network address: the link is the address the page was opened at, which the test's tablet opens as it is. */
const LOOPBACK_ONLY: NetworkInterfaces = { lo: [{ address: "127.0.0.1", family: "IPv4", internal: true, netmask: "", mac: "", cidr: null } as never] };

async function decodeQr(png: Buffer): Promise<string | undefined> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}

async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/household/`);
  await page.locator("#key").fill(key);
  await page.locator("#sign-in-form button[type=submit]").click();
  await page.locator("body[data-signed-in=true]").waitFor();
  await page.locator("#tabs [data-tab=devices]").click();
}

describe("browser: the Household page, the senior's tablet", function () {
  this.timeout(180_000);
  let s: EditorSession;
  let tabletBrowser: Browser;
  let page: Page;
  let tablet: Page;
  let link = "";
  const tabletErrors: string[] = [];
  const shot = (p: Page, name: string) => p.screenshot({ path: path.join(SCREENSHOT_DIR, `household-tablet-${name}.png`), fullPage: true });

  before(async function () {
    const auth = testAuthSettings();
    // A real household (CAREFLOW_DEMO=0): no web app key in the settings file.
    auth.api_keys = auth.api_keys!.filter((k) => !k.permissions.includes("webapp"));
    s = await startEditorSession(this, { settings: { auth }, networkInterfaces: () => LOOPBACK_ONLY });
    tabletBrowser = await launchTabletBrowser(chromiumOrSkip(this));
    // Somebody in the household, so the admin lands on the tabs rather than the guided set-up.
    assert.equal((await s.t.post("/api/v1/persons", { display_name: "Rose" })).status, 201);
    page = await (await s.browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    page.on("pageerror", (e) => s.pageErrors.push(e.message));
  });
  after(async () => {
    if (s) assert.deepEqual([...s.pageErrors, ...tabletErrors], [], "no script errors on the pages");
    await tabletBrowser?.close();
    await s?.close();
  });

  it("shows the section to the admin: no link yet, no tablet connected", async () => {
    await signIn(page, s.t.baseUrl, KEYS.admin);
    const section = page.locator("#tablet");
    await section.waitFor({ state: "visible" });
    await page.locator("#tablet-link-none").filter({ hasText: "The tablet has no link yet" }).waitFor();
    await page.locator("#tablets tbody tr.empty", { hasText: "No tablet is connected now." }).waitFor();
    await page.locator("#tablet-keys tbody tr.empty", { hasText: "No tablet keys yet." }).waitFor();
    await section.scrollIntoViewIfNeeded();
    await shot(page, "none");
    await assertAccessible(page, "the senior's tablet section, before a link", { include: ["#tablet"] });
  });

  it("makes a new tablet link: the link and its QR code, shown once", async () => {
    await page.locator("#tablet-form [name=name]").fill("Mum's tablet");
    await page.locator("#tablet-form button[type=submit]").click();
    await page.locator("#tablet-link").waitFor({ state: "visible" });
    assert.equal(await page.locator("#tablet-link-once").isVisible(), true, "said to be shown once");
    assert.match(await page.locator("#tablet-link-title").innerText(), /Mum's tablet/);
    link = (await page.locator("#tablet-link-url").innerText()).trim();
    // This box has no network address: the link is localhost's, which this test's tablet shares.
    assert.match(link, new RegExp(`^http://localhost:${new URL(s.t.baseUrl).port}/app/#key=[A-Za-z0-9_%-]{20,}$`));
    // The QR code holds the same link, as the tablet's camera reads it.
    const qr = await page.locator("#tablet-link-qr img").screenshot();
    assert.equal(await decodeQr(qr), link);
    // The key is one of the household's managed keys, with the tablet's role.
    const keys = (await s.t.get("/api/v1/admin/keys")).body as Array<{ name: string; role: string; source: string }>;
    assert.deepEqual(
      keys.filter((k) => k.source === "managed").map((k) => [k.name, k.role]),
      [["Mum's tablet", "webapp"]],
    );
    await page.locator('#tablet-keys tbody tr[data-key-name="Mum\'s tablet"]').waitFor();
    await page.locator("#tablet").scrollIntoViewIfNeeded();
    await shot(page, "link");
    await assertAccessible(page, "the senior's tablet section, a link made", { include: ["#tablet"] });
  });

  it("the tablet opens the link and appears in the list of tablets connected now", async () => {
    const context = await tabletBrowser.newContext({ viewport: { width: 1280, height: 800 }, hasTouch: true });
    tablet = await context.newPage();
    tablet.on("pageerror", (e) => tabletErrors.push(e.message));
    await tablet.goto(link);
    await tablet.waitForFunction(() => window.careflowWebApp?.state === "connected", undefined, { timeout: 20_000 });
    assert.equal(await tablet.evaluate(() => window.localStorage.getItem("careflow.webapp.key")), decodeURIComponent(link.split("#key=")[1]));
    // The page reads the list again while the tab is open: nobody presses anything.
    const row = page.locator('#tablets tbody tr[data-key-name="Mum\'s tablet"]');
    await row.waitFor({ timeout: 20_000 });
    const cells = await row.locator("td").allInnerTexts();
    assert.equal(cells[0], "Mum's tablet");
    assert.match(cells[1], /^…[A-Za-z0-9_-]{6}$/, "the screen's own id, shortened");
    assert.notEqual(cells[2], "never");
    assert.match(await page.locator("#tablets-said").innerText(), /1 connected now/);
    await tablet.screenshot({ path: path.join(SCREENSHOT_DIR, "household-tablet-the-tablet.png") });
    await page.locator("#tablet").scrollIntoViewIfNeeded();
    await shot(page, "connected");
    await assertAccessible(page, "the senior's tablet section, a tablet connected", { include: ["#tablet"] });
  });

  it("Done takes the link off the page; it is not shown again", async () => {
    await page.locator("#tablet-link-done").click();
    await page.locator("#tablet-link").waitFor({ state: "hidden" });
    await page.locator("#tablet-link-none").filter({ hasText: 'The link of "Mum\'s tablet" was shown once' }).waitFor();
    assert.ok(!(await page.content()).includes(link.split("#key=")[1]), "the key is gone from the page");
  });

  it("a caregiver reads the tablets connected now, and sees no key", async () => {
    const nurse = await (await s.browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    nurse.on("pageerror", (e) => s.pageErrors.push(e.message));
    await signIn(nurse, s.t.baseUrl, KEYS.caregiver);
    await nurse.locator('#tablets tbody tr[data-key-name="Mum\'s tablet"]').waitFor();
    assert.equal(await nurse.locator("#tablet-form").isVisible(), false);
    assert.equal(await nurse.locator("#tablet-keys").isVisible(), false);
    assert.equal(await nurse.locator("#notice").innerText(), "", "no error for the caregiver");
    assert.ok(!(await nurse.content()).includes("#key="), "no link on the caregiver's page");
    await shot(nurse, "caregiver");
    await assertAccessible(nurse, "the Devices tab for a caregiver");
    await nurse.context().close();
  });

  it("the tablet closed, the list empties", async () => {
    await tablet.context().close();
    await page.locator("#tablets-refresh").click();
    await page.locator("#tablets tbody tr.empty", { hasText: "No tablet is connected now." }).waitFor({ timeout: 20_000 });
  });
});

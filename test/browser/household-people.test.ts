/**
 * The Household page's People tab (issue 43 §1) in a real Chromium, as an admin: a blank name
 * said beside the field; a member added (the first one is the Senior); the alert profile set to
 * a preset and to a custom one and read back from the API; five face photos and two bad ones
 * uploaded, each shown with the API's result (face found, or refused and why) and nothing
 * stored, then the five enrolled; where the member is now, since when and from which source.
 * The camera: a fake one takes a photo into the list; without one the page says so. A caregiver
 * reads the tab and cannot change it. Screenshots: test-output/screenshots/household-people-*.png.
 */
import assert from "node:assert/strict";
import path from "node:path";
import sharp from "sharp";
import type { Browser, Page } from "playwright-core";
import { WorkerFaceEngine } from "../../runtime/household/identity/builtin-engine";
import type { ImageFaces } from "../../runtime/household/identity/engine";
import { chromiumPath, launchTabletBrowser, SCREENSHOT_DIR, startEditorSession, type EditorSession } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { ENROLL_AUGMENTS, faceCrop, sampleFrame } from "../support/face-photos";
import { KEYS } from "../support/test-app";

const ALL_KINDS = ["pacing", "room_revisit_rate", "bathroom_dwell_anomaly", "sundowning_index", "nighttime_movement", "stillness_anomaly", "absence"];

async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/household/`);
  await page.locator("#key").fill(key);
  await page.locator("#sign-in-form button[type=submit]").click();
  await page.locator("body[data-signed-in=true]").waitFor();
  await page.locator("#tabs [data-tab=people]").click();
}

describe("browser: the Household page, people", function () {
  this.timeout(240_000);
  let s: EditorSession;
  let page: Page;
  let crops: Buffer[];
  let group: Buffer;
  let blank: Buffer;
  const photoRow = (name: string) => page.locator(`#person-photos li[data-photo-name="${name}"]`);
  const rose = async () => (await s.t.get("/api/v1/persons/grandma_rose")).body;

  before(async function () {
    s = await startEditorSession(this);
    group = await sampleFrame(1);
    const probe = new WorkerFaceEngine();
    const faces = ((await probe.detect([group]))[0] as ImageFaces).faces;
    await probe.close();
    crops = await Promise.all(ENROLL_AUGMENTS.map((a) => faceCrop(group, faces[0].bbox, a)));
    blank = await sharp({ create: { width: 320, height: 240, channels: 3, background: "#8899aa" } })
      .jpeg()
      .toBuffer();
    // The kitchen camera in the kitchen, so a sighting places a person there.
    const room = await s.t.post("/api/v1/rooms", { name: "kitchen" });
    assert.equal(room.status, 201, room.text);
    assert.equal((await s.t.request("PUT", "/api/v1/sensors/kitchen_cam", { body: { room_id: room.body.id } })).status, 200);
    page = await (await s.browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    page.on("pageerror", (e) => s.pageErrors.push(e.message));
  });
  after(async () => {
    await s?.close();
  });

  it("says a blank name beside the field", async () => {
    await signIn(page, s.t.baseUrl, KEYS.admin);
    await page.locator("#people tbody tr.empty").waitFor();
    await page.locator("#person-add").click();
    assert.equal(await page.locator("#person-form-title").innerText(), "Add a member");
    await page.locator("#person-name").fill("   ");
    await page.locator("#person-save").click();
    await page.locator("#person-display_name-error").filter({ hasText: "must not be empty" }).waitFor();
    assert.equal(await page.locator("#person-name").getAttribute("aria-invalid"), "true");
    assert.equal(await page.locator("#person-form-error").innerText(), "");
    await s.screenshot(page, "household-people-error");
    await assertAccessible(page, "the People tab with a refused name");
    // Typing again takes the error away.
    await page.locator("#person-name").fill("Grandma Rose");
    assert.equal(await page.locator("#person-display_name-error").innerText(), "");
  });

  it("adds a member as the Senior, the first one, and the API stores every signal", async () => {
    assert.equal(await page.locator("#person-profile-senior").isChecked(), true, "the first member is the senior");
    assert.match(await page.locator("#person-profiles").innerText(), /Adult\s+Another adult of the family who lives here\. Alerts on: away or not seen/);
    await page.locator("#person-save").click();
    await page.locator('#people tbody tr[data-person="grandma_rose"]').waitFor();
    const p = await rose();
    assert.equal(p.alert_profile, "senior");
    assert.deepEqual([...p.cts_alert_config.enabled_kinds].sort(), [...ALL_KINDS].sort());
    assert.equal(p.cts_alert_config.min_severity, "info");
    assert.match(await page.locator('#people tr[data-person="grandma_rose"]').innerText(), /Grandma Rose\s+Senior\s+Not enrolled\s+Not seen yet/);
    assert.equal(await page.locator("#person-form-title").innerText(), "Grandma Rose");
    // The same name again: its id is taken, said beside the name.
    await page.locator("#person-add").click();
    await page.locator("#person-name").fill("Grandma Rose");
    await page.locator("#person-save").click();
    await page.locator("#person-display_name-error").filter({ hasText: "another member's name" }).waitFor();
    await page.locator('#people tr[data-person="grandma_rose"] [data-action=open]').click();
  });

  it("sets a preset and a custom profile, each read back from the API", async () => {
    await page.locator("#person-profile-presence_only").check();
    assert.equal(await page.locator("#person-kind-absence").isChecked(), true);
    assert.equal(await page.locator("#person-kind-pacing").isChecked(), false);
    assert.equal(await page.locator("#person-kind-pacing").isDisabled(), true, "a preset's signals are shown, not chosen");
    await page.locator("#person-save").click();
    await page.locator("#notice.ok").filter({ hasText: "Saved Grandma Rose" }).waitFor();
    let p = await rose();
    assert.equal(p.alert_profile, "presence_only");
    assert.deepEqual(p.cts_alert_config, { enabled_kinds: ["absence"], min_severity: "info" });

    await page.locator("#person-profile-custom").check();
    await page.locator("#person-kind-pacing").check();
    await page.locator("#person-severity").selectOption("warning");
    await page.locator("#person-save").click();
    await page.locator('#people tr[data-person="grandma_rose"] td:nth-child(2)').filter({ hasText: "Custom" }).waitFor();
    p = await rose();
    assert.equal(p.alert_profile, "custom");
    assert.deepEqual(p.cts_alert_config, { enabled_kinds: ["pacing", "absence"], min_severity: "warning" });
    await s.screenshot(page, "household-people-profile");

    // Back to the Senior: every signal again.
    await page.locator("#person-profile-senior").check();
    await page.locator("#person-save").click();
    await page.locator('#people tr[data-person="grandma_rose"] td:nth-child(2)').filter({ hasText: "Senior" }).waitFor();
    assert.equal((await rose()).alert_profile, "senior");
  });

  it("shows each uploaded photo's result, stores nothing while one is refused, then enrolls", async () => {
    const files = [
      ...crops.map((buffer, i) => ({ name: `rose-${i + 1}.jpg`, mimeType: "image/jpeg", buffer })),
      { name: "wall.jpg", mimeType: "image/jpeg", buffer: blank },
      { name: "party.jpg", mimeType: "image/jpeg", buffer: group },
    ];
    await page.locator("#person-photos-input").setInputFiles(files);
    await page.locator("#person-photos li.photo").nth(6).waitFor();
    assert.equal(await page.locator("#person-photo-count").innerText(), "7 photos.");
    assert.equal(await page.locator('#person-photos li[data-result="waiting"] img').count(), 7, "each photo previewed");
    await page.locator("#person-enroll").click();
    await page.locator('#person-photos li[data-result="refused"]').nth(1).waitFor({ timeout: 60_000 });
    for (let i = 1; i <= 5; i++) assert.equal(await photoRow(`rose-${i}.jpg`).getAttribute("data-result"), "ok");
    assert.equal(await photoRow("rose-1.jpg").locator(".photo-result").innerText(), "Face found");
    assert.equal(await photoRow("wall.jpg").locator(".photo-result").innerText(), "Refused: no face found in this photo");
    assert.match(await photoRow("party.jpg").locator(".photo-result").innerText(), /^Refused: this photo shows \d faces \(each photo must show exactly one\)$/);
    assert.match(await page.locator("#person-photos-status").innerText(), /Nothing was stored/);
    assert.equal((await s.t.get("/api/v1/persons/grandma_rose/enrollment")).status, 404);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "household-people-photos-refused.png"), fullPage: true });

    await photoRow("wall.jpg").getByRole("button", { name: "Remove wall.jpg" }).click();
    await photoRow("party.jpg").getByRole("button", { name: "Remove party.jpg" }).click();
    assert.equal(await page.locator("#person-photos li.photo").count(), 5);
    await page.locator("#person-enroll").click();
    await page.locator("#person-photos-status").filter({ hasText: "Enrolled" }).waitFor({ timeout: 60_000 });
    assert.equal(await page.locator('#person-photos li[data-result="ok"]').count(), 5);
    const e = await s.t.get("/api/v1/persons/grandma_rose/enrollment");
    assert.equal(e.status, 200);
    assert.equal(e.body.embedding_count, 5);
    await page.locator('#person-enrollment[data-enrolled="true"]').waitFor();
    assert.match(await page.locator("#person-enrollment").innerText(), /knows Grandma Rose's face from 5 photos/);
    assert.match(await page.locator('#people tr[data-person="grandma_rose"]').innerText(), /Known from 5 photos/);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, "household-people-enrolled.png"), fullPage: true });
    await assertAccessible(page, "the People tab after enrolling");
  });

  it("says where the member is now, since when and from which source", async () => {
    const at = Date.now() - 5 * 60_000;
    s.t.app.ctx.bus.publish("person.sighted", {
      person_id: "grandma_rose",
      person_name: "Grandma Rose",
      visitor: false,
      sensor_id: "kitchen_cam",
      room_name: null,
      confidence: 0.9,
      bbox: [10, 20, 110, 140],
      at,
      media_path: "media/ab/cd/abcd.jpg",
      direction_raw: null,
      direction_semantic: null,
    });
    await s.t.app.tracking.idle();
    const api = (await s.t.get("/api/v1/persons/grandma_rose/location")).body;
    assert.equal(api.room_name, "kitchen");
    await page.locator("#tabs [data-tab=devices]").click();
    await page.locator("#tabs [data-tab=people]").click();
    await page.locator('#people tr[data-person="grandma_rose"] [data-action=open]').click();
    const expected = await page.evaluate((iso) => new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }), api.since as string);
    assert.equal(await page.locator("#person-where").innerText(), `In the kitchen since ${expected}, seen by a camera`);
    assert.match(await page.locator('#people tr[data-person="grandma_rose"]').innerText(), /In the kitchen since/);
    assert.deepEqual(s.pageErrors, []);
  });

  it("says so when there is no camera, and takes a photo with one", async () => {
    // This browser has no camera: the page says so beside the button, and the upload remains.
    await page.locator("#person-camera-start").click();
    await page.locator("#person-camera-message").filter({ hasText: "Choose photos instead" }).waitFor();
    assert.equal(await page.locator("#person-camera").isVisible(), false);

    // A browser with Chromium's fake camera (a moving test pattern, no face).
    let cam: Browser | undefined;
    try {
      cam = await launchTabletBrowser(chromiumPath()!, ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]);
      const ctx = await cam.newContext({ viewport: { width: 1400, height: 1000 } });
      await ctx.grantPermissions(["camera"], { origin: s.t.baseUrl });
      const p2 = await ctx.newPage();
      p2.on("pageerror", (e) => s.pageErrors.push(e.message));
      await signIn(p2, s.t.baseUrl, KEYS.admin);
      await p2.locator('#people tr[data-person="grandma_rose"] [data-action=open]').click();
      await p2.locator("#person-camera-start").click();
      await p2.locator("#person-camera").waitFor({ state: "visible" });
      await p2.waitForFunction(() => ((globalThis as unknown as { document: any }).document.getElementById("person-camera-video")?.videoWidth ?? 0) > 0);
      await p2.locator("#person-camera-take").click();
      await p2.locator('#person-photos li[data-photo-name="camera-1.jpg"] img').waitFor();
      assert.equal(await p2.locator("#person-photo-count").innerText(), "1 photo: 4 more needed (5 to 10).");
      await s.screenshot(p2, "household-people-camera");
      await p2.locator("#person-camera-stop").click();
      assert.equal(await p2.locator("#person-camera").isVisible(), false);
      // Another tab turns the camera off too.
      await p2.locator("#person-camera-start").click();
      await p2.locator("#person-camera").waitFor({ state: "visible" });
      await p2.locator("#tabs [data-tab=health]").click();
      await p2.locator("#tabs [data-tab=people]").click();
      assert.equal(await p2.locator("#person-camera").isVisible(), false);
      assert.equal(await p2.evaluate(() => (globalThis as unknown as { document: any }).document.getElementById("person-camera-video").srcObject), null);
    } finally {
      await cam?.close();
    }
    assert.deepEqual(s.pageErrors, []);
  });

  it("lets a caregiver read the tab but not change it", async () => {
    const other = await (await s.browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
    other.on("pageerror", (e) => s.pageErrors.push(e.message));
    await signIn(other, s.t.baseUrl, KEYS.caregiver);
    await other.locator('#people tr[data-person="grandma_rose"]').waitFor();
    assert.match(await other.locator('#people tr[data-person="grandma_rose"]').innerText(), /Grandma Rose\s+Senior\s+Known from 5 photos/);
    await other.locator("#tab-people .admin-only-note").waitFor({ state: "visible" });
    assert.equal(await other.locator("#person-add").isVisible(), false);
    await other.locator('#people tr[data-person="grandma_rose"] [data-action=open]').click();
    assert.equal(await other.locator("#person-name").inputValue(), "Grandma Rose");
    assert.equal(await other.locator("#person-name").isDisabled(), true);
    assert.equal(await other.locator("#person-profile-senior").isDisabled(), true);
    assert.equal(await other.locator("#person-save").isVisible(), false);
    assert.equal(await other.locator("#person-photos-input").isVisible(), false);
    assert.match(await other.locator("#person-where").innerText(), /In the kitchen since/);
    assert.equal(await other.locator("#notice").innerText(), "", "no error, only the sentence");
    await s.screenshot(other, "household-people-caregiver");
    await assertAccessible(other, "the People tab for a caregiver");
    // The API says the same: a caregiver's key may not write a person.
    assert.equal((await s.t.request("PATCH", "/api/v1/persons/grandma_rose", { body: { display_name: "X" }, key: KEYS.caregiver })).status, 403);
    assert.deepEqual(s.pageErrors, []);
  });
});

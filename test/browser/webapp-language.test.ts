/**
 * The senior's web app in her own language (issue 49), in a real Chromium: every screen (the
 * idle clock, a popup, a prompt with its countdown and answer, an info card, a quiz with its
 * feedback and "well done", the voice panel, the offline bar) in English, German and Hindi,
 * switched by the Senior member's `language`. On the German and Hindi screens no English
 * catalog word shows (the family's own text and names aside), the page's `lang` is hers, and
 * Hindi draws with careflow's own Devanagari font. Frames are the server's own, sent through
 * its web app hub. Screenshots: test-output/screenshots/webapp-lang-{en,de,hi}-*.png.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { createApp, type CareflowApp } from "../../runtime/app/app";
import { buildSettings } from "../../runtime/platform/config/load-settings";
import { createLogger } from "../../runtime/platform/core/logger";
import { catalog, type Messages } from "../../runtime/platform/i18n/catalogs";
import { chromiumOrSkip, launchTabletBrowser, SCREENSHOT_DIR } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { KEYS, testAuthSettings } from "../support/test-app";
import { migratedDatabase, type TestDatabase } from "../support/test-db";

declare const document: any;
declare const window: any;

/** Every piece of English catalog text between placeholders ("You got", "of", "right."). */
function englishPieces(m: Messages, key = ""): string[] {
  return Object.entries(m).flatMap(([k, v]) =>
    typeof v === "string"
      ? `${key}${k}` === "language.name"
        ? []
        : v
            .split(/\{\{\s*\w+\s*\}\}/)
            .map((p) => p.replace(/^[\s·:.!]+|[\s·:]+$/g, ""))
            .filter((p) => p.length >= 2)
      : englishPieces(v, `${key}${k}.`),
  );
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The family's own words in each language (a rule's message, a card, a quiz): not the catalog's. */
const FAMILY = {
  en: { popup: "The kettle is still on.", prompt: "Would you like some tea?", card: "Anna", body: "Anna comes on Sunday.", question: "Who comes on Sunday?" },
  de: {
    popup: "Der Wasserkocher ist noch an.",
    prompt: "Möchten Sie einen Tee?",
    card: "Anna",
    body: "Anna kommt am Sonntag.",
    question: "Wer kommt am Sonntag?",
  },
  hi: { popup: "केतली अभी भी चालू है।", prompt: "क्या आप चाय पिएँगी?", card: "अन्ना", body: "अन्ना रविवार को आती है।", question: "रविवार को कौन आता है?" },
} as const;
type Lng = keyof typeof FAMILY;

describe("browser: the senior's web app in her language", function () {
  this.timeout(180000);
  let db: TestDatabase;
  let app: CareflowApp | undefined;
  let port = 0;
  let base = "";
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const pieces = englishPieces(catalog("en")!);

  async function start(): Promise<void> {
    const settings = buildSettings({ auth: testAuthSettings(), app: { timezone: "Europe/Berlin" } });
    app = await createApp({
      config: { port: 0, dataDir: db.dataDir, databaseUrl: db.databaseUrl, settingsFile: undefined, settings },
      log: createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent"),
      nodeRed: false,
      demo: false,
    });
    port = await app.listen(port, "127.0.0.1");
    base = `http://127.0.0.1:${port}`;
  }
  async function api(method: string, p: string, body?: unknown): Promise<{ status: number; text: string }> {
    const res = await fetch(base + p, {
      method,
      headers: { "x-api-key": KEYS.admin, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  }
  const send = (frame: Record<string, unknown>) => app!.ctx.webapp.broadcast(frame as never);
  const until = (fn: () => boolean, timeout = 15000) => page.waitForFunction(fn, undefined, { timeout });
  const screen = (name: string) => page.waitForFunction((n: string) => document.body.dataset.screen === n, name, { timeout: 15000 });

  /** On a German or Hindi screen: no English catalog word among what is shown, and the page says its language. */
  async function check(lng: Lng, name: string): Promise<void> {
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `webapp-lang-${lng}-${name}.png`) });
    assert.equal(await page.evaluate(() => document.documentElement.lang), lng, `${name}: <html lang>`);
    if (lng !== "en") {
      const text: string = await page.evaluate(() => document.body.innerText);
      const english = pieces.filter((p) => new RegExp(`(^|[^\\p{L}])${escape(p)}($|[^\\p{L}])`, "u").test(text));
      assert.deepEqual(english, [], `${lng} ${name}: English on screen in ${JSON.stringify(text)}`);
    }
    await assertAccessible(page, `the senior's app in ${lng} (${name})`);
  }

  before(async function () {
    const executablePath = chromiumOrSkip(this);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    db = await migratedDatabase();
    await start();
    const rose = await api("POST", "/api/v1/persons", { display_name: "Rose", language: "en" });
    assert.equal(rose.status, 201, rose.text);
    browser = await launchTabletBrowser(executablePath);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${base}/app#key=${encodeURIComponent(KEYS.webapp)}`);
    await until(() => window.careflowWebApp?.state === "connected");
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await app?.close();
    await db?.drop();
  });

  let n = 0;
  for (const lng of ["en", "de", "hi"] as const) {
    it(`${lng}: every screen in ${lng === "en" ? "English" : lng === "de" ? "German" : "Hindi"}`, async () => {
      const words = FAMILY[lng];
      const res = await api("PATCH", "/api/v1/persons/rose", { language: lng });
      assert.equal(res.status, 200, res.text);
      await page.waitForFunction((l: string) => document.documentElement.lang === l, lng);

      // The idle clock: the day, the date and the part of the day in her language, in Europe/Berlin.
      await screen("idle");
      const day = new Intl.DateTimeFormat(lng, { weekday: "long", timeZone: "Europe/Berlin" }).format(new Date());
      assert.equal(await page.locator("#day").innerText(), day);
      if (lng === "de") assert.doesNotMatch(await page.locator("#clock").innerText(), /AM|PM/, "24-hour, as is the custom");
      await check(lng, "idle");

      // A popup, the level word around the family's message.
      send({ type: "warning", message: words.popup, alert_id: null });
      await screen("popup");
      await page.locator("#popup-message", { hasText: words.popup }).waitFor();
      await check(lng, "popup");
      await page.locator("#popup-ok").tap();
      await screen("idle");

      // A prompt as a rule with the spec's defaults sends it: the title and buttons in her words, the countdown counted in them.
      const exec = 9000 + ++n;
      send({
        type: "interactive_prompt",
        execution_id: exec,
        step_id: 1,
        title: "Question for You",
        message: words.prompt,
        dismiss_button_text: "I'm okay",
        escalate_button_text: "I need help",
        countdown_seconds: 90,
        countdown_total_seconds: 90,
        expires_at: new Date(Date.now() + 90_000).toISOString(),
      });
      await screen("prompt");
      await page.locator("#prompt-message", { hasText: words.prompt }).waitFor();
      const own = catalog(lng)!.prompt as Messages;
      assert.equal(await page.locator("#prompt-title").innerText(), own.title);
      assert.equal(await page.locator("#prompt-dismiss").innerText(), own.dismiss);
      assert.ok(Number(await page.locator("#prompt-seconds").innerText()) > 80, "the seconds left, as a number of its own");
      await check(lng, "prompt");
      await page.locator("#prompt-dismiss").tap();
      await page.locator("#prompt-thanks").waitFor({ state: "visible" });
      assert.match(await page.locator("#prompt-thanks-answer").innerText(), new RegExp(escape(own.dismiss as string)));
      await check(lng, "prompt-answered");
      await screen("idle");

      // An info card.
      send({ type: "info_card", delivery_id: exec, card: { title: words.card, body_text: words.body, layout_id: "text_only", images: [] } });
      await screen("card");
      await check(lng, "card");
      await page.locator("#card-dismiss").tap();
      await screen("idle");

      // A quiz: a question, the word on a wrong answer, then well done with the score.
      const question = {
        ord: 1,
        number: 1,
        of: 1,
        question_type: "multiple_choice",
        question_text: words.question,
        choices: [
          { id: "a", text: words.card },
          { id: "b", text: "Tom" },
        ],
        image_url: null,
        image_alt: "",
      };
      const session = { session_id: exec, title: words.card, status: "active", question_count: 1, correct_count: 0, answered_count: 0, score: 0, question };
      send({ type: "quiz_question", session });
      await screen("quiz");
      await page.locator("#quiz-question", { hasText: words.question }).waitFor();
      await check(lng, "quiz");
      send({
        type: "quiz_answer_result",
        session: { ...session, status: "completed", answered_count: 1, question: null },
        question_ord: 1,
        is_correct: false,
        chosen_choice_id: "b",
        correct_choice_text: words.card,
        explanation: "",
      });
      await page.locator("#quiz-feedback").waitFor({ state: "visible" });
      await check(lng, "quiz-feedback");
      await page.locator("#quiz-done").waitFor({ state: "visible", timeout: 10000 });
      await check(lng, "quiz-done");
      await page.locator("#quiz-ok").tap();
      await screen("idle");

      // The voice panel, with what she said.
      send({ type: "voice", subtype: "session_start", session_id: `v${exec}` });
      await page.locator("#voice").waitFor({ state: "visible" });
      send({ type: "voice", subtype: "transcript", session_id: `v${exec}`, role: "user", text: words.card });
      await page.locator("#voice-words", { hasText: words.card }).waitFor();
      await check(lng, "voice");
      send({ type: "voice", subtype: "session_end", session_id: `v${exec}`, reason: "test" });
      await page.locator("#voice").waitFor({ state: "hidden" });

      if (lng === "hi") {
        // Devanagari from careflow's own font, not a box from whatever the tablet has.
        const drawn = await page.evaluate(async () => {
          await document.fonts.load('16px "careflow Noto Sans Devanagari"', "सवाल");
          await document.fonts.ready;
          return document.fonts.check('16px "careflow Noto Sans Devanagari"', "सवाल");
        });
        assert.equal(drawn, true, "careflow's Noto Sans Devanagari is loaded from /app");
      }

      // The offline bar, while the server is away.
      await app!.close();
      app = undefined;
      await until(() => window.careflowWebApp.state === "disconnected");
      await page.locator("#status-retry").filter({ hasText: /\d/ }).waitFor();
      await check(lng, "offline");
      await start();
      await until(() => window.careflowWebApp.state === "connected", 20000);
    });
  }

  it("threw nothing in the page", () => assert.deepEqual(pageErrors, []));
});

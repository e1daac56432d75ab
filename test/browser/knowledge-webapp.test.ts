/**
 * Cards and quizzes on the senior's web app in a real Chromium: a card with its picture shown
 * by a rule and put away with a tap (recorded), and a whole quiz answered by tap to the end
 * (a reload in the middle shows the question it is at) while the run waits, the run then
 * continuing with the score. Screenshots: test-output/screenshots/webapp-{card,quiz,quiz-feedback,quiz-last-answer,quiz-done}.png.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page, Route } from "playwright-core";
import { chromiumOrSkip, launchTabletBrowser, SCREENSHOT_DIR } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { eventually, importRule } from "../support/eventually";
import { FAMILY_QUESTIONS, insertCard, insertQuiz } from "../support/knowledge-fixture";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";

declare const document: any;
declare const window: any;

describe("browser: cards and quizzes on the web app", function () {
  this.timeout(120000);
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  const until = (fn: () => boolean, timeout = 15000) => page.waitForFunction(fn, undefined, { timeout });
  const shot = (name: string) => page.screenshot({ path: path.join(SCREENSHOT_DIR, `webapp-${name}.png`) });
  const execute = async (ruleId: number): Promise<number> => (await t.post(`/api/v1/rules/${ruleId}/execute`)).body.execution_id as number;
  const run = async (exec: number) => (await t.get(`/api/v1/workflows/${exec}`)).body;

  before(async function () {
    const executablePath = chromiumOrSkip(this);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    t = await startTestApp({ nodeRed: true });
    browser = await launchTabletBrowser(executablePath);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, hasTouch: true });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${t.baseUrl}/app#key=${encodeURIComponent(KEYS.webapp)}`);
    await until(() => window.careflowWebApp?.state === "connected");
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await t?.close();
  });

  it("shows a card with its picture and records when the senior puts it away", async () => {
    const cardId = await insertCard(t.app.ctx, {
      picture: true,
      title: "The new heater",
      body_text: "Press the green button once. It gets warm in ten minutes. Do not touch the red switch.",
    });
    const ruleId = await importRule(t, {
      rule: { name: "Heater card", trigger_type: "manual" },
      steps: [{ label: "card", step_type: "info_card", schema_version: 1, config: { card_id: cardId } }],
      edges: [],
    });
    const exec = await execute(ruleId);
    await page.locator("#card").waitFor({ state: "visible" });
    assert.equal(await page.locator("#card-title").innerText(), "The new heater");
    assert.match(await page.locator("#card-body").innerText(), /Press the green button once/);
    await until(() => {
      const img = document.querySelector("#card-images img");
      return img && img.complete && img.naturalWidth > 0;
    });
    assert.equal(await page.locator("#card-images img").getAttribute("alt"), "Anna smiling");
    const done = await eventually("the run ended", async () => {
      const r = await run(exec);
      return r.status === "completed" && r;
    });
    const deliveryId = done.pipeline_data.info_card.delivery_id as number;
    await shot("card");
    await assertAccessible(page, "the senior's app (card)");
    await page.locator("#card-dismiss").tap();
    await until(() => document.body.dataset.screen === "idle");
    const delivery = await eventually("the dismissal is recorded", async () => {
      const list = (await t.get("/api/v1/knowledge-interactions/info-card-deliveries")).body as Array<Record<string, any>>;
      const d = list.find((x) => x.id === deliveryId);
      return d?.dismissed_at ? d : undefined;
    });
    assert.equal(delivery.dismissed_by, "test web app");
    assert.ok(delivery.viewed_at, "the screen said it showed it");
  });

  it("runs a whole quiz by tap, one question at a time, and the run continues with the score", async () => {
    // The last question explains its answer: the tablet shows that word before "Well done".
    const questions = FAMILY_QUESTIONS.map((q, i) => (i === FAMILY_QUESTIONS.length - 1 ? { ...q, explanation: "The market is on Tuesday mornings." } : q));
    const quizId = await insertQuiz(t.app.ctx, { questions });
    const ruleId = await importRule(t, {
      rule: { name: "Quiz", trigger_type: "manual" },
      steps: [
        { label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId } },
        { label: "did well", step_type: "condition", schema_version: 1, config: { expression: "quiz.score >= 50" } },
      ],
      edges: [{ source_label: "quiz", source_port: "main", target_label: "did well" }],
    });
    const exec = await execute(ruleId);
    await page.locator("#quiz").waitFor({ state: "visible" });
    assert.equal(await page.locator("#quiz-progress").innerText(), "Question 1 of 3");
    assert.equal(await page.locator("#quiz-question").innerText(), "Who comes for lunch on Sunday?");
    await until(() => {
      const img = document.getElementById("quiz-image");
      return !img.hidden && img.complete && img.naturalWidth > 0;
    });
    assert.deepEqual(await page.locator("#quiz-choices button").allInnerTexts(), ["Anna", "Peter", "The doctor"]);
    await shot("quiz");
    await assertAccessible(page, "the senior's app (quiz)");

    await page.locator("#quiz-choices button", { hasText: "Anna" }).tap();
    await page.locator("#quiz-feedback").waitFor({ state: "visible" });
    assert.match(await page.locator("#quiz-feedback").innerText(), /That's right! Anna comes every Sunday\./);

    // A tablet that reloads (or connects) in the middle is shown the question the quiz is at,
    // even when the quiz script comes after the server's first frames (a slow revalidation).
    const slowScript = async (route: Route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    };
    await page.route("**/app/knowledge.js", slowScript);
    await page.reload();
    await until(() => window.careflowWebApp?.state === "connected");
    await page.unroute("**/app/knowledge.js", slowScript);
    await until(() => document.getElementById("quiz-progress")?.textContent === "Question 2 of 3");
    assert.equal(await page.locator("#quiz-question").innerText(), "What colour is the new heater's button?");
    assert.equal(await page.locator("#quiz-image").isVisible(), false, "this question has no picture");

    await page.locator("#quiz-choices button", { hasText: "Red" }).tap();
    await page.locator("#quiz-feedback").waitFor({ state: "visible" });
    assert.match(await page.locator("#quiz-feedback").innerText(), /Good try\. The answer is Green\. The green button turns it on\./);
    assert.equal(await page.locator("#quiz-choices button.right").innerText(), "Green", "the right answer is shown gently");
    await shot("quiz-feedback");
    await assertAccessible(page, "the senior's app (quiz-feedback)");

    await until(() => document.getElementById("quiz-progress")?.textContent === "Question 3 of 3");
    await page.locator("#quiz-choices button", { hasText: "Tuesday" }).tap();
    await page.locator("#quiz-feedback").waitFor({ state: "visible" });
    assert.match(await page.locator("#quiz-feedback").innerText(), /That's right! The market is on Tuesday mornings\./);
    assert.equal(await page.locator("#quiz-done").isVisible(), false, "the last answer's word comes before 'Well done'");
    await shot("quiz-last-answer");
    await page.locator("#quiz-done").waitFor({ state: "visible", timeout: 15000 });
    assert.equal(await page.locator("#quiz-score").innerText(), "You got 2 of 3 right.");
    await shot("quiz-done");
    await assertAccessible(page, "the senior's app (quiz-done)");

    const done = await eventually("the run completed", async () => {
      const r = await run(exec);
      return r.status === "completed" && r;
    });
    assert.equal(done.pipeline_data.quiz.status, "completed");
    assert.equal(done.pipeline_data.quiz.score, 67);
    assert.equal(done.pipeline_data.condition.result, true);
    await page.locator("#quiz-ok").tap();
    await until(() => document.body.dataset.screen === "idle");
    assert.deepEqual(pageErrors, []);
  });
});

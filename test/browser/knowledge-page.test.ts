/**
 * The caregiver's Knowledge page (`/knowledge/`) in a real Chromium, end to end as the issue's
 * "done when" says: a document with a photo uploaded through the page, its passages read and
 * approved (the photo with its description), a test question answered from it with real scores,
 * a text file uploaded as a document, a card and a quiz drafted from it by the
 * (fake) authoring model, corrected and approved on the page; then a rule delivers that card
 * to the senior's tablet and the e-ink display, and the quiz is answered by tap on the tablet
 * while its run waits. The editor links to the page. Screenshots:
 * test-output/screenshots/knowledge-{sign-in,document,ask,card-draft,card,quiz,tablet-card}.png.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { chromiumOrSkip, loginToEditor, SCREENSHOT_DIR } from "../support/browser";
import { assertAccessible } from "../support/a11y";
import { eventually, importRule } from "../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../support/test-app";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../fakes/openai-chat-server";
import { eyePixels, portraitJpeg } from "../runtime/care/services/knowledge/knowledge-test-support";

declare const document: any;
declare const window: any;

const CARD_DRAFT = {
  title: "Anna visits on Sundays",
  body_text: "Anna comes every Sunday at three. She brings Mia and Leo.",
  layout_id: "single_hero",
  voice_instruction: null,
};
const QUIZ_DRAFT = {
  title: "Who comes on Sunday?",
  intro_voice_template: "A little quiz about the family.",
  questions: [
    {
      question_type: "multiple_choice",
      question_text: "Who comes on Sundays?",
      choices: [
        { id: "a", text: "Anna", is_correct: true },
        { id: "b", text: "The postman", is_correct: false },
      ],
      explanation: "Anna comes every Sunday.",
    },
    {
      question_type: "multiple_choice",
      question_text: "At what time does she come?",
      choices: [
        { id: "a", text: "At nine", is_correct: false },
        { id: "b", text: "At three", is_correct: true },
      ],
      explanation: "She comes at three.",
    },
  ],
};

describe("browser: the caregiver's Knowledge page, from a document to the senior", function () {
  this.timeout(180_000);
  let fake: ScriptedServer;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const shot = (p: Page, name: string) => p.screenshot({ path: path.join(SCREENSHOT_DIR, `knowledge-${name}.png`) });
  const notice = () => page.locator("#notice").innerText();
  let cardId = 0;
  let quizId = 0;

  before(async function () {
    const executablePath = chromiumOrSkip(this);
    fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
    fake = await startFakeOpenAiChatServer();
    t = await startTestApp({
      nodeRed: true,
      settings: {
        llm: {
          models: [{ id: "author", api_type: "openai", base_url: fake.baseUrl, model: "writer-7b", capabilities: ["text"], guided_decoding: true, timeout: 5 }],
        },
        knowledge: { authoring_model: "author" },
      },
    });
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
  });
  after(async () => {
    await browser?.close().catch(() => undefined);
    await t?.close();
    await fake?.close();
  });

  it("signs in with a caregiver key (a web app key is told it may not)", async () => {
    await page.goto(`${t.baseUrl}/knowledge/`);
    await page.locator("#key").fill(KEYS.webapp);
    await page.locator("#sign-in-form button[type=submit]").click();
    await page.locator("#sign-in-error").filter({ hasText: "caregiver or admin key" }).waitFor();
    await shot(page, "sign-in");
    await assertAccessible(page, "the Knowledge page (sign-in)");
    await page.locator("#key").fill(KEYS.caregiver);
    await page.locator("#sign-in-form button[type=submit]").click();
    // The list shows before its first load fills it: wait for what a caregiver would read.
    await page.locator("#doc-list").filter({ hasText: "No documents yet" }).waitFor();
    assert.match(await page.locator("#doc-list").innerText(), /No documents yet/);
  });

  it("uploads a document with a photo, shows its passages, and approves it", async () => {
    await page.locator("#doc-new").click();
    await page.locator("#doc-form [name=title]").fill("Anna's visits");
    await page
      .locator("#doc-form [name=source_text]")
      .fill("Anna comes every Sunday at three in the afternoon.\n\nShe brings the grandchildren, Mia and Leo. They like to play cards with Grandma.");
    await page.locator("#doc-form [name=tags]").fill("family, visits");
    // A portrait, as a phone takes a person: the tablet's one large picture must keep the face.
    await page.locator("#doc-form [name=images]").setInputFiles({ name: "anna.jpg", mimeType: "image/jpeg", buffer: await portraitJpeg() });
    await page.locator("#doc-photo-descriptions input").fill("Anna smiling in the garden");
    await page.locator("#doc-form button[type=submit]").click();
    await page.locator("#doc-detail").waitFor({ state: "visible" });
    assert.match(await notice(), /Uploaded "Anna's visits"/);
    assert.equal(await page.locator("#doc-title").innerText(), "Anna's visits");
    assert.match(await page.locator("#doc-tags").innerText(), /family, visits/);
    await page.waitForFunction(() => {
      const img = document.querySelector("#doc-images img");
      return img && img.complete && img.naturalWidth > 0;
    });
    assert.equal(await page.locator("#doc-images figcaption").innerText(), "Anna smiling in the garden");
    assert.equal(await page.locator("#doc-images img").getAttribute("alt"), "Anna smiling in the garden");
    await page.locator("#doc-chunks-box summary").click();
    assert.match(await page.locator("#doc-chunks").innerText(), /every Sunday at three/);
    assert.match(await page.locator("#doc-chunks").innerText(), /Photo: Anna smiling in the garden/, "the description is searched");
    await page.locator("#doc-actions [data-action=approve]").click();
    await page.locator("#doc-badge[data-status=approved]").waitFor();
    await shot(page, "document");
    await assertAccessible(page, "the Knowledge page (document)");
  });

  it("answers a test question from the approved document and shows the passage it came from", async () => {
    await page.locator("#tabs [data-tab=ask]").click();
    await page.locator("#ask-query").fill("When is Anna coming?");
    await page.locator("#ask-form button[type=submit]").click();
    await page.locator("#ask-result").waitFor({ state: "visible" });
    assert.match(await page.locator("#ask-answer").innerText(), /every Sunday at three/);
    assert.match(await page.locator("#ask-passages").innerText(), /Anna's visits/);
    const scores = [...(await page.locator("#ask-passages").innerText()).matchAll(/score (\d\.\d{3})/g)].map((m) => Number(m[1]));
    assert.ok(scores.length > 0 && scores.every((x) => x > 0 && x <= 1), `real scores, not 0.000: ${scores.join(", ")}`);
    await shot(page, "ask");
    await assertAccessible(page, "the Knowledge page (ask)");
  });

  it("uploads a text file as a document, named after the file", async () => {
    await page.locator("#tabs [data-tab=documents]").click();
    await page.locator("#doc-new").click();
    const text = "# The heater\n\nTurn the round knob to the right for warmer.\n\nIf the red light blinks, call Anna.\n";
    await page.locator("#doc-form [name=source_file]").setInputFiles({ name: "heater.md", mimeType: "text/markdown", buffer: Buffer.from(text) });
    await page.locator("#doc-form button[type=submit]").click();
    await page.locator("#notice", { hasText: 'Uploaded "heater"' }).waitFor();
    // The notice comes as the upload answers; the document opens a moment after.
    await page.locator("#doc-title", { hasText: /^heater$/ }).waitFor();
    // Its passages (the box is still open from the document before).
    await page.waitForFunction(() => /round knob to the right/.test(document.getElementById("doc-chunks")?.textContent ?? ""));
  });

  it("drafts a card from the document with the model, takes the caregiver's correction and the photo, and approves it", async () => {
    fake.script({ content: JSON.stringify(CARD_DRAFT) });
    await page.locator("#tabs [data-tab=documents]").click();
    await page.locator("#doc-list li", { hasText: "Anna's visits" }).click();
    // The document opens as its answer comes: a draft asked for before drafts the one still open.
    await page.locator("#doc-title", { hasText: /^Anna's visits$/ }).waitFor();
    await page.locator("#draft-card").click();
    await page.waitForFunction(() => document.querySelector("#card-draft [name=title]").value === "Anna visits on Sundays");
    assert.match(await notice(), /Here is a draft/);
    await page.locator("#card-draft [name=title]").fill("Anna comes on Sunday");
    await page.locator("#card-photos figure").first().click();
    await shot(page, "card-draft");
    await assertAccessible(page, "the Knowledge page (card-draft)");
    await page.locator("#card-draft button[type=submit]").click();
    await page.locator("#notice", { hasText: "Saved the card" }).waitFor();

    await page.locator("#tabs [data-tab=cards]").click();
    await page.locator("#card-list li", { hasText: "Anna comes on Sunday" }).click();
    await page.locator("#card-detail [data-action=approve]").click();
    await page.locator("#card-detail .badge[data-status=approved]").waitFor();
    await page.waitForFunction(() => {
      const img = document.querySelector("#card-detail .preview img");
      return img && img.complete && img.naturalWidth > 0;
    });
    await shot(page, "card");
    await assertAccessible(page, "the Knowledge page (card)");
    const cards = (await t.get("/api/v1/info-cards?status=approved")).body;
    const card = (cards.items ?? cards).find((c: any) => c.title === "Anna comes on Sunday");
    assert.ok(card, JSON.stringify(cards));
    cardId = card.id;
  });

  it("drafts a quiz from the document, saves its questions, and approves it", async () => {
    fake.script({ content: JSON.stringify(QUIZ_DRAFT) });
    await page.locator("#tabs [data-tab=documents]").click();
    await page.locator("#doc-list li", { hasText: "Anna's visits" }).click();
    // The document opens as its answer comes: a draft asked for before drafts the one still open.
    await page.locator("#doc-title", { hasText: /^Anna's visits$/ }).waitFor();
    await page.locator("#draft-quiz").click();
    await page.waitForFunction(() => document.querySelectorAll("#quiz-questions .question").length === 2);
    await page.locator("#quiz-draft button[type=submit]").click();
    await page.locator("#notice", { hasText: "with 2 questions" }).waitFor();
    await page.locator("#tabs [data-tab=quizzes]").click();
    await page.locator("#quiz-list li", { hasText: "Who comes on Sunday?" }).click();
    await page.locator("#quiz-detail [data-action=approve]").click();
    await page.locator("#quiz-detail .badge[data-status=approved]").waitFor();
    assert.match(await page.locator("#quiz-detail").innerText(), /✔ At three/);
    await shot(page, "quiz");
    await assertAccessible(page, "the Knowledge page (quiz)");
    const quizzes = (await t.get("/api/v1/quizzes?status=approved")).body;
    quizId = (quizzes.items ?? quizzes)[0].id;
    assert.deepEqual(pageErrors, []);
  });

  it("delivers that card to the tablet and the e-ink display, and the tablet answers that quiz by tap while the run waits", async () => {
    assert.ok(cardId && quizId, "the card and quiz of the earlier steps");
    const tablet = await (await browser.newContext({ viewport: { width: 1280, height: 800 }, hasTouch: true })).newPage();
    tablet.on("pageerror", (e) => pageErrors.push(e.message));
    await tablet.goto(`${t.baseUrl}/app#key=${encodeURIComponent(KEYS.webapp)}`);
    await tablet.waitForFunction(() => window.careflowWebApp?.state === "connected");
    const defaultImage = await fetch(`${t.baseUrl}/api/v1/image/active`, { headers: { "x-api-key": KEYS.display } });
    const before = Buffer.from(await defaultImage.arrayBuffer());

    const cardRule = await importRule(t, {
      rule: { name: "Sunday card", trigger_type: "manual" },
      steps: [
        { label: "card", step_type: "info_card", schema_version: 1, config: { card_id: cardId, channels: ["pwa", "eink"], eink_targets: ["hall_display"] } },
      ],
      edges: [],
    });
    await t.post(`/api/v1/rules/${cardRule}/execute`);
    await tablet.locator("#card").waitFor({ state: "visible" });
    assert.equal(await tablet.locator("#card-title").innerText(), "Anna comes on Sunday");
    await tablet.waitForFunction(() => {
      const img = document.querySelector("#card-images img");
      return img && img.complete && img.naturalWidth > 0;
    });
    await tablet.screenshot({ path: path.join(SCREENSHOT_DIR, "knowledge-tablet-card.png") });
    // The one large picture of a portrait keeps the face (sharp's attention crop): its eyes are on screen.
    const shown = await tablet.locator("#card-images img").screenshot();
    assert.ok((await eyePixels(shown)) > 100, "the face is in the picture");
    const eink = await eventually("the display's new image", async () => {
      const res = await fetch(`${t.baseUrl}/api/v1/image/active`, { headers: { "x-api-key": KEYS.display } });
      const bytes = Buffer.from(await res.arrayBuffer());
      return res.status === 200 && !bytes.equals(before) && bytes;
    });
    fs.writeFileSync(path.join(SCREENSHOT_DIR, "knowledge-eink-card.png"), eink);
    await tablet.locator("#card-dismiss").tap();

    const quizRule = await importRule(t, {
      rule: { name: "Sunday quiz", trigger_type: "manual" },
      steps: [{ label: "quiz", step_type: "quiz_start", schema_version: 1, config: { quiz_id: quizId, dedupe_minutes: 0 } }],
      edges: [],
    });
    const exec = (await t.post(`/api/v1/rules/${quizRule}/execute`)).body.execution_id as number;
    for (const [i, right] of ["Anna", "At three"].entries()) {
      await tablet.waitForFunction((n: string) => document.getElementById("quiz-progress")?.textContent === n, `Question ${i + 1} of 2`);
      await tablet.locator("#quiz-choices button", { hasText: right }).first().tap();
    }
    await tablet.locator("#quiz-done").waitFor({ state: "visible", timeout: 15000 });
    assert.equal(await tablet.locator("#quiz-score").innerText(), "You got 2 of 2 right.");
    const done = await eventually("the quiz run continued with the score", async () => {
      const r = (await t.get(`/api/v1/workflows/${exec}`)).body;
      return r.status === "completed" && r;
    });
    assert.equal(done.pipeline_data.quiz.status, "completed");
    assert.equal(done.pipeline_data.quiz.correct, 2);
    assert.deepEqual(pageErrors, []);
  });

  it("is linked from the editor's header", async () => {
    const editor = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await editor.goto(`${t.baseUrl}/editor/`);
    await editor.locator("#node-dialog-login-username").waitFor();
    await loginToEditor(editor, "admin", KEYS.admin);
    const link = editor.locator("#careflow-knowledge-link");
    await link.waitFor();
    assert.equal(await link.getAttribute("href"), "/knowledge/");
  });
});

/**
 * Browser tests in a real Chromium (Debian's `chromium` package) driven by playwright-core:
 * one browser per test file, the real app on port 0 with a fresh database, the editor logged
 * in through its own login dialog. Screenshots go to `test-output/screenshots/` (gitignored)
 * so a person can look at the main views after a run.
 *
 * Without a Chromium the suite skips with a visible message, unless
 * `CAREFLOW_REQUIRE_BROWSER=1` or `CAREFLOW_REQUIRE_SERVICES=1` (set by `.ci/run`), where a missing
 * browser is a failure.
 */
import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { startTestApp, type TestApp, type TestAppOptions } from "./test-app";

/* Browser globals inside page.evaluate callbacks (the test build has no DOM lib). */

declare const RED: any;
declare const document: any;

export const SCREENSHOT_DIR = path.resolve(__dirname, "../../../test-output/screenshots");

/** The Chromium to drive: `CHROMIUM_PATH`, else the usual Debian paths. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter((p): p is string => !!p);
  return candidates.find((p) => fs.existsSync(p));
}

/**
 * Call from a `before` hook: the Chromium to drive, or the suite skips (visibly) when there is
 * none and none is required (`CAREFLOW_REQUIRE_BROWSER=1` makes a missing browser a failure).
 */
export function chromiumOrSkip(ctx: Mocha.Context): string {
  const executablePath = chromiumPath();
  if (!executablePath) {
    const message = "no Chromium found (set CHROMIUM_PATH or install Debian's chromium)";
    if (process.env.CAREFLOW_REQUIRE_BROWSER === "1" || process.env.CAREFLOW_REQUIRE_SERVICES === "1") throw new Error(`browser tests: ${message}`);
    console.warn(`\n    browser tests skipped: ${message}\n`);
    ctx.skip();
  }
  return executablePath!;
}

/** Chromium as the senior's tablet: it plays sound without a first tap (an installed app may); `extraArgs` e.g. a fake microphone. */
export function launchTabletBrowser(executablePath: string, extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--autoplay-policy=no-user-gesture-required", ...extraArgs],
  });
}

export interface EditorSession {
  t: TestApp;
  browser: Browser;
  /** Errors thrown in any page, for tests to assert there are none. */
  pageErrors: string[];
  /** A new page (own browser context, so own login) on the editor's login dialog. */
  newPage(): Promise<Page>;
  /** A new page logged in to the editor as `user`. */
  newEditorPage(user: string, password: string): Promise<Page>;
  /** Writes `test-output/screenshots/<name>.png`. */
  screenshot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Call from a `before` hook: starts the app and one browser for the file, or skips the suite
 * (visibly) when there is no Chromium and none is required.
 */
export async function startEditorSession(ctx: Mocha.Context, opts: TestAppOptions = {}): Promise<EditorSession> {
  const executablePath = chromiumOrSkip(ctx);
  const t = await startTestApp({ nodeRed: true, ...opts });
  let browser: Browser;
  try {
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
  } catch (err) {
    await t.close();
    throw err;
  }
  const pageErrors: string[] = [];
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(`${t.baseUrl}/editor/`);
    await page.locator("#node-dialog-login-username").waitFor();
    return page;
  };
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    t,
    browser,
    pageErrors,
    newPage,
    newEditorPage: async (user, password) => {
      const page = await newPage();
      await loginToEditor(page, user, password);
      return page;
    },
    screenshot: async (page, name) => {
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
    },
    close: async () => {
      await browser.close().catch(() => undefined);
      await t.close();
    },
  };
}

/** Logs in through Node-RED's login dialog (on the page already) and waits until the workspace is ready. */
export async function loginToEditor(page: Page, user: string, password: string): Promise<void> {
  await page.locator("#node-dialog-login-username").fill(user);
  await page.locator("#node-dialog-login-password").fill(password);
  await page.locator("#node-dialog-login-submit").click();
  await waitForEditor(page);
}

/** The editor has loaded its node types and flows. */
export async function waitForEditor(page: Page): Promise<void> {
  await page.waitForFunction(
    () => typeof RED !== "undefined" && RED.nodes && RED.nodes.getType("care-trigger") && RED.nodes.version() && document.querySelector(".red-ui-palette-node"),
    undefined,
    {
      timeout: 20000,
    },
  );
}

export interface Notification {
  type: "error" | "warning" | "success" | "info";
  text: string;
}

/**
 * Clicks the real Deploy button (confirming Node-RED's own "deploy anyway?" dialog when it
 * asks) and returns the notification with the deploy's outcome.
 */
export async function deployAndReadNotification(page: Page): Promise<Notification> {
  // Notifications already up are not this deploy's: marked, and dismissed as a caregiver clicks
  // them away (one over the Deploy button held the click until it timed out, 5 s or 20 s).
  await page.evaluate(() =>
    document.querySelectorAll(".red-ui-notification").forEach((n: any) => {
      n.classList.add("careflow-seen");
      n.close?.();
    }),
  );
  await page.locator("#red-ui-header-button-deploy").click();
  const confirm = page.locator("#red-ui-deploy-dialog-confirm-deploy-deploy");
  // The deploy's own outcome (warnings the server pushes after it are read with waitForNotification).
  const note = page.locator(".red-ui-notification:not(.careflow-seen)", { hasText: /^(Successfully deployed|Deploy failed)/ }).first();
  const settled = (p: Promise<void>, name: string) => p.then(() => name).catch(() => "timeout");
  const first = await Promise.race([
    settled(note.waitFor({ state: "visible", timeout: 15000 }), "note"),
    settled(confirm.waitFor({ state: "visible", timeout: 15000 }), "confirm"),
  ]);
  if (first === "confirm") await confirm.click();
  await note.waitFor({ state: "visible", timeout: 15000 });
  return readNotification(note);
}

async function readNotification(note: Locator): Promise<Notification> {
  const cls = (await note.getAttribute("class")) ?? "";
  const type: Notification["type"] = /red-ui-notification-error/.test(cls)
    ? "error"
    : /red-ui-notification-warning/.test(cls)
      ? "warning"
      : /red-ui-notification-success/.test(cls)
        ? "success"
        : "info";
  return { type, text: (await note.innerText()).trim() };
}

/** Waits for a notification whose text matches (one pushed by the server after a deploy, say). */
export async function waitForNotification(page: Page, text: RegExp): Promise<Notification> {
  const note = page.locator(".red-ui-notification:not(.careflow-seen)", { hasText: text }).first();
  await note.waitFor({ state: "visible", timeout: 15000 });
  return readNotification(note);
}

/**
 * The editor in a real Chromium: log in, change a node in its edit dialog and deploy with the
 * real Deploy button (the change is then what REST reads), every refusal of deploy
 * validation as the editor shows it, and the caregiver's read-only login.
 */
import { unbuiltStep } from "../support/stand-in-handler";
import assert from "node:assert/strict";
import { deleteSensor } from "../../runtime/household/sensors/sensors.service";
import type { Page } from "playwright-core";
import { deployAndReadNotification, startEditorSession, waitForNotification, type EditorSession } from "../support/browser";
import { KEYS } from "../support/test-app";

declare const RED: any;
declare const document: any;
declare const window: any;

describe("browser: editing and deploying rules in the editor", function () {
  this.timeout(60000);
  let s: EditorSession;
  let page: Page;

  before(async function () {
    s = await startEditorSession(this, { demo: true });
    await s.t.post("/api/v1/rooms", { name: "Kitchen" });
    await s.t.post("/api/v1/sensors", { sensor_id: "kitchen_pir", sensor_type: "presence" });
    await s.t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
  });
  after(async () => {
    if (s) assert.deepEqual(s.pageErrors, [], "no script errors in the editor");
    await s?.close();
  });

  /** Imports one rule tab into the editor (trigger → given nodes in a chain) and shows it. */
  const importRule = (id: string, label: string, trigger: Record<string, unknown>, nodes: Array<Record<string, unknown>>) =>
    page.evaluate(
      ({ id, label, trigger, nodes }) => {
        const ids = nodes.map((_: unknown, i: number) => `${id}-n${i}`);
        const flows = [
          { id, type: "tab", label, disabled: false, info: "" },
          {
            id: `${id}-trig`,
            type: "care-trigger",
            z: id,
            name: "",
            config: { trigger_type: "manual", ...trigger },
            config_version: 1,
            x: 120,
            y: 80,
            wires: [ids.slice(0, 1)],
          },
          ...nodes.map((n: any, i: number) => ({ x: 320 + i * 200, y: 80, config_version: 1, wires: [ids.slice(i + 1, i + 2)], ...n, id: ids[i], z: id })),
        ];
        RED.view.importNodes(flows, { generateIds: false });
        RED.workspaces.show(id);
      },
      { id, label, trigger, nodes },
    );

  const removeTab = (id: string) => page.evaluate((id) => RED.workspaces.delete(RED.nodes.workspace(id)), id);

  const ruleByName = async (name: string) => {
    const rules = (await s.t.get("/api/v1/rules")).body as Array<{ id: number; name: string }>;
    const rule = rules.find((r) => r.name === name);
    assert.ok(rule, `rule '${name}' in ${rules.map((r) => r.name).join(", ")}`);
    return rule;
  };

  it("logs in as admin through the login dialog, which says what to type", async () => {
    page = await s.newPage();
    const message = page.locator(".careflow-login-message");
    await message.waitFor();
    assert.match(await message.innerText(), /admin with an admin API key.*caregiver with a caregiver API key/);
    await s.screenshot(page, "01-login");
    await page.locator("#node-dialog-login-username").fill("admin");
    await page.locator("#node-dialog-login-password").fill("not-the-key");
    await page.locator("#node-dialog-login-submit").click();
    await page.locator("#node-dialog-login-failed").waitFor({ state: "visible" });
    await page.locator("#node-dialog-login-password").fill(KEYS.admin);
    await page.locator("#node-dialog-login-submit").click();
    await page.waitForFunction(() => typeof RED !== "undefined" && RED.nodes.version() && document.querySelector(".red-ui-palette-node"), undefined, {
      timeout: 20000,
    });
    const tabs = await page.locator("#red-ui-workspace-tabs .red-ui-tab-label").allInnerTexts();
    assert.deepEqual(tabs.map((x) => x.trim()).sort(), ["A part went quiet", "Bathroom check", "Devices", "Morning medication", "Night wandering"]);
    // The editor opens on the first care rule, not on the locked Devices tab (which comes first in the tab order).
    const opened = await page.evaluate(() => {
      const order = RED.nodes.getWorkspaceOrder();
      const ruleTabs = order.filter((id: string) => RED.nodes.filterNodes({ z: id, type: "care-trigger" }).length);
      return {
        first: RED.nodes.workspace(order[0]).label,
        shown: RED.nodes.workspace(RED.workspaces.active()).label,
        firstRule: RED.nodes.workspace(ruleTabs[0]).label,
      };
    });
    assert.equal(opened.first, "Devices", "the Devices tab stays, first in the order");
    assert.equal(opened.shown, opened.firstRule, "the editor shows the first rule's tab");
    assert.equal(await page.locator("#red-ui-workspace-tabs .red-ui-tab.active .red-ui-tab-label").innerText(), opened.firstRule);
    await s.screenshot(page, "02-editor");
  });

  it("changes a field in a node's edit dialog, deploys with the Deploy button, and REST reads the change", async () => {
    const rule = await ruleByName("Morning medication");
    const nodeId = await page.evaluate(() => {
      const tab = RED.nodes
        .getWorkspaceOrder()
        .map((id: string) => RED.nodes.workspace(id))
        .find((t: any) => t.label === "Morning medication");
      RED.workspaces.show(tab.id);
      return RED.nodes.filterNodes({ z: tab.id, type: "care-notification" })[0].id;
    });
    await page.evaluate((id) => RED.editor.edit(RED.nodes.node(id)), nodeId);
    const field = page.locator("#careflow-care-notification-message_template");
    await field.waitFor({ state: "visible" });
    assert.match(await field.inputValue(), /Time for your morning medicine/);
    await field.fill("Good morning Rose, it is {{system.local_time}}. Please take your medicine.");
    await s.screenshot(page, "03-edit-dialog");
    await page.locator("#node-dialog-ok").click();
    await field.waitFor({ state: "detached" });

    const note = await deployAndReadNotification(page);
    assert.equal(note.type, "success", note.text);
    assert.match(note.text, /Successfully deployed/);
    const steps = (await s.t.get(`/api/v1/rules/${rule.id}/steps`)).body as Array<{ label: string; config_json: { message_template?: string } }>;
    assert.equal(
      steps.find((st) => st.label === "remind")?.config_json.message_template,
      "Good morning Rose, it is {{system.local_time}}. Please take your medicine.",
    );
  });

  const refusals: Array<[string, string, string, Record<string, unknown>, Array<Record<string, unknown>>, RegExp]> = [
    [
      "a condition that does not parse",
      "b-cond",
      "Medication check",
      {},
      [{ type: "care-condition", name: "check verified", config: { expression: "not verification.verified and (" } }],
      /rule 'Medication check', step 'check verified', expression: .*\(at character \d+\)/,
    ],
    [
      "an unknown sensor in the trigger",
      "b-sensor",
      "Kitchen watch",
      { trigger_type: "sensor_event", primary_sensor_id: "kitchen_pri" },
      [{ type: "care-wait", name: "pause", config: { duration_minutes: 1 }, config_version: 2 }],
      /rule 'Kitchen watch', trigger, primary_sensor_id: the household has no sensor 'kitchen_pri'; did you mean 'kitchen_pir'\?/,
    ],
    [
      "an unknown room in a filter",
      "b-room",
      "Room check",
      {},
      [{ type: "care-filter-room", name: "only kitchen", config: { room_names: ["Kitchn"] }, wires: [] }],
      /rule 'Room check', filter 'only kitchen', config.room_names.0: the household has no room 'Kitchn'; did you mean 'kitchen'\?/,
    ],
    [
      "an unknown person in a step",
      "b-person",
      "Where is she",
      {},
      [{ type: "care-presence_query", name: "where", config: { person_id: "ros" } }],
      /rule 'Where is she', step 'where', person_id: the household has no person 'ros'; did you mean 'rose'\?/,
    ],
    [
      "an unlabelled step",
      "b-label",
      "Nameless",
      {},
      [{ type: "care-wait", name: "", config: { duration_minutes: 1 }, config_version: 2 }],
      /rule 'Nameless', step '\(no label\)', steps.0.label: a step needs a label/,
    ],
    [
      "a node type that cannot run yet",
      "b-pending",
      "Lights",
      {},
      [{ type: "care-hub_action", name: "light on", config: { domain: "light", service: "turn_on" } }],
      /rule 'Lights', step 'light on', step_type: hub_action cannot run yet: it needs the hub client/,
    ],
    [
      "a function node in a rule",
      "b-fn",
      "With code",
      {},
      [{ type: "function", name: "my code", func: "return msg;", outputs: 1 }],
      /rule 'With code', node 'my code', type: a 'function' node is not a care node/,
    ],
  ];

  for (const [what, id, label, trigger, nodes, message] of refusals) {
    it(`refuses ${what} with a readable message naming rule, node and field`, async () => {
      const before = ((await s.t.get("/api/v1/rules")).body as Array<{ name: string }>).map((r) => r.name).sort();
      await importRule(id, label, trigger, nodes);
      const restore = unbuiltStep("hub_action", "the hub client");
      const note = await deployAndReadNotification(page).finally(restore);
      if (id === "b-cond") await page.waitForTimeout(500).then(() => s.screenshot(page, "04-deploy-refused")); // after the notification slid in
      assert.equal(note.type, "error", note.text);
      assert.match(note.text, /^Deploy failed: This would break a rule, so nothing was deployed:/);
      assert.match(note.text, message);
      assert.doesNotMatch(note.text, /[{}"]code"|&#39;|&lt;|<li>/, "readable text, not JSON or markup");
      assert.deepEqual(((await s.t.get("/api/v1/rules")).body as Array<{ name: string }>).map((r) => r.name).sort(), before, "nothing was deployed");
      await removeTab(id);
    });
  }

  it("deploys a misspelt template key, then warns about it with a suggestion", async () => {
    await importRule("b-typo", "Greeting", {}, [
      { type: "care-notification", name: "say hello", config: { alert_level: "info", message_template: "It is {{sytem.local_time}}" } },
    ]);
    const note = await deployAndReadNotification(page);
    assert.equal(note.type, "success", note.text);
    const warning = await waitForNotification(page, /Deployed, with/);
    assert.equal(warning.type, "warning");
    assert.match(
      warning.text,
      /^Deployed, with one thing to look at:\s*rule 'Greeting', step 'say hello', message_template: 'sytem.local_time' is not written by .*; did you mean 'system'\?/,
    );
    await page.waitForTimeout(500);
    await s.screenshot(page, "05-deploy-warning");
    await ruleByName("Greeting");
  });

  it("does not let a broken rule the deploy leaves alone block it", async function () {
    this.timeout(120_000); // four deploys
    await s.t.post("/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence" });
    await importRule("b-old", "Hall at night", { trigger_type: "sensor_event", primary_sensor_id: "hall_pir" }, [
      { type: "care-wait", name: "pause", config: { duration_minutes: 1 }, config_version: 2 },
    ]);
    assert.equal((await deployAndReadNotification(page)).type, "success");
    // The rule breaks outside the editor (REST refuses to delete a sensor a rule uses, but a
    // store from before that check can hold such a rule): the sensor goes behind the API's back.
    assert.equal((await s.t.request("DELETE", "/api/v1/sensors/hall_pir")).status, 409);
    await deleteSensor(s.t.app.ctx, "hall_pir");
    await importRule("b-new", "Kitchen pause", {}, [{ type: "care-wait", name: "pause", config: { duration_minutes: 2 }, config_version: 2 }]);
    assert.equal((await deployAndReadNotification(page)).type, "success");
    const warning = await waitForNotification(page, /Deployed, with/);
    assert.match(
      warning.text,
      /rule 'Hall at night', trigger, primary_sensor_id: the household has no sensor 'hall_pir'.*\(the rule was not changed by this deploy and is left as it was\)/,
    );
    await ruleByName("Kitchen pause");
    await ruleByName("Hall at night");
    // The next deploy's warning shows too: the editor keeps a notification's id for good, so a
    // second warning under the first one's id was only an update of a closed notification.
    await importRule("b-next", "Porch pause", {}, [{ type: "care-wait", name: "pause", config: { duration_minutes: 3 }, config_version: 2 }]);
    assert.equal((await deployAndReadNotification(page)).type, "success");
    assert.match((await waitForNotification(page, /Deployed, with/)).text, /rule 'Hall at night'/);
  });

  it("says in a family's words that Draft from words needs a language model, and who sets it up", async () => {
    await page.evaluate(() => RED.sidebar.show("careflow-rehearse"));
    const note = page.locator(".careflow-not-set-up");
    await note.waitFor({ state: "visible" });
    const words = await note.innerText();
    assert.match(words, /^Drafting needs a language model, and none is set up in this home yet\. Whoever installed careflow can set one up/);
    assert.doesNotMatch(words, /authoring_model|llm\.|knowledge\./, "no settings path on a caregiver's screen");
    assert.equal(await page.locator(".careflow-draft-from-words").isDisabled(), true, "the button cannot be pressed to fail");
    await s.screenshot(page, "04-draft-from-words-not-set-up");
  });

  it("shows a run and its steps in the Care runs sidebar", async () => {
    const rule = await ruleByName("Greeting");
    const run = await s.t.post(`/api/v1/rules/${rule.id}/execute`, {});
    assert.ok(run.status < 300, run.text);
    await page.evaluate(() => RED.sidebar.show("careflow-runs"));
    const row = page.locator(".careflow-run", { hasText: "Greeting" }).first();
    await row.waitFor({ state: "visible" });
    await row.click();
    // The step in a sentence; its node label and type behind "details".
    const step = page.locator(".careflow-step", { has: page.locator(".careflow-step-sentence", { hasText: /^(⚠ )?(Sent to|Tried to send)/ }) });
    await step.waitFor({ state: "visible" });
    await s.screenshot(page, "07-runs-sidebar");
    await step.locator(".careflow-step-toggle").click();
    await page.locator(".careflow-step-record", { hasText: "say hello (notification)" }).filter({ visible: true }).first().waitFor();
  });

  it("lets a caregiver read the rules but not deploy", async () => {
    const cg = await s.newEditorPage("caregiver", KEYS.caregiver);
    const tabs = await cg.locator("#red-ui-workspace-tabs .red-ui-tab-label").allInnerTexts();
    assert.ok(
      tabs.some((x) => x.trim() === "Morning medication"),
      tabs.join(", "),
    );
    const deploy = cg.locator("#red-ui-header-button-deploy");
    const usable = (await deploy.count()) > 0 && (await deploy.isVisible()) && !(await deploy.evaluate((el: any) => el.classList.contains("disabled")));
    assert.equal(usable, false, "the Deploy button is not usable for a caregiver");
    // Even a deploy the page sends itself is refused.
    const status = await cg.evaluate(
      () =>
        new Promise<number>((resolve) => {
          RED.nodes.dirty(true);
          window.$.ajax({
            url: "flows",
            type: "POST",
            data: JSON.stringify({ flows: RED.nodes.createCompleteNodeSet(), rev: RED.nodes.version() }),
            contentType: "application/json; charset=utf-8",
            headers: { "Node-RED-Deployment-Type": "full", "Node-RED-API-Version": "v2" },
          })
            .done((_d: unknown, _t: unknown, xhr: any) => resolve(xhr.status))
            .fail((xhr: any) => resolve(xhr.status));
        }),
    );
    assert.equal(status, 401);
    await s.screenshot(cg, "06-caregiver-read-only");
    await cg.context().close();
  });
});

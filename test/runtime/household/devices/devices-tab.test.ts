/**
 * The Devices system tab in the embedded Node-RED: it ships locked, it comes back when a
 * deploy deletes it (and cameras keep working), a deploy that would break it is refused
 * saying why, and an integrator's own nodes wired to it leave the device contract intact.
 */
import assert from "node:assert/strict";
import { DEVICES_TAB_ID } from "../../../../runtime/household/devices/devices-tab";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";

interface Node {
  id: string;
  type: string;
  z?: string;
  wires?: string[][];
  [k: string]: unknown;
}

describe("the Devices tab", function () {
  this.timeout(60000);
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ nodeRed: true });
  });
  after(() => t.close());

  const editor = async (path: string, body?: unknown) => {
    const res = await fetch(`${t.baseUrl}/editor${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${KEYS.admin}`, "content-type": "application/json", "Node-RED-API-Version": "v2", "Node-RED-Deployment-Type": "full" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text && (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined, text };
  };
  const flows = async (): Promise<{ flows: Node[]; rev: string }> => (await editor("/flows")).body;
  const deploy = async (next: Node[]) => editor("/flows", { flows: next, rev: (await flows()).rev });
  const upload = async (seed: number) => t.request("POST", "/api/v1/device/camera", { key: KEYS.camera, body: cameraPayload(await testJpeg(32, 24, seed)) });

  it("ships locked, with a device-in node per device wired into the ingest stages", async () => {
    const { flows: all } = await flows();
    const tab = all.find((n) => n.id === DEVICES_TAB_ID)!;
    assert.equal(tab.type, "tab");
    assert.equal(tab.label, "Devices");
    assert.equal(tab.locked, true);
    const onTab = all.filter((n) => n.z === DEVICES_TAB_ID).map((n) => n.type);
    assert.deepEqual(onTab.sort(), [
      "care-device-aggregate",
      "care-device-in",
      "care-device-in",
      "care-device-label_filter",
      "care-device-rotate",
      "care-device-store",
      "care-device-terminal",
    ]);
    assert.deepEqual(t.app.devices.endpoints.servedBy("camera"), ["de71ce5000000001"]);
    assert.equal((await upload(1)).body.status, "accepted");
    // It is not a rule.
    const rules = (await t.get("/api/v1/rules")).body as Array<{ name: string }>;
    assert.ok(!rules.some((r) => r.name === "Devices"));
  });

  it("refuses a deploy that removes one of its nodes, cuts a wire or disables it, saying which", async () => {
    const { flows: all } = await flows();
    const noStore = all.filter((n) => n.type !== "care-device-store");
    let res = await deploy(noStore);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /This would break the Devices tab.*must keep its .{1,6}Store.{1,6} node/);
    const cut = all.map((n) => (n.type === "care-device-rotate" ? { ...n, wires: [[]] } : n));
    res = await deploy(cut);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /the wire from .{1,6}Rotate.{1,6} to .{1,6}Label filter.{1,6} must stay/);
    res = await deploy(all.map((n) => (n.id === DEVICES_TAB_ID ? { ...n, disabled: true } : n)));
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /cannot be disabled/);
    res = await deploy([
      ...all,
      { id: "x-in", type: "care-device-in", z: DEVICES_TAB_ID, config: { device: "camera" }, config_version: 1, x: 1, y: 1, wires: [[]] },
    ]);
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /only the Devices tab.{1,6}s device-in node serves camera input/);
    assert.equal((await upload(2)).body.status, "accepted", "the running tab is untouched");
  });

  it("lets an integrator wire their own nodes to it without breaking the device contract", async () => {
    const { flows: all } = await flows();
    const next = all.map((n) => (n.type === "care-device-store" ? { ...n, wires: [[...(n.wires?.[0] ?? []), "my-debug"]] } : n));
    next.push({ id: "my-debug", type: "debug", z: DEVICES_TAB_ID, name: "see frames", active: true, complete: "payload.device", x: 900, y: 140, wires: [] });
    const res = await deploy(next);
    assert.equal(res.status, 200, res.text);
    const up = await upload(3);
    assert.equal(up.status, 200, up.text);
    assert.equal(up.body.status, "accepted");
  });

  it("comes back when a deploy deletes it, and cameras keep working", async () => {
    const { flows: all } = await flows();
    const res = await deploy(all.filter((n) => n.id !== DEVICES_TAB_ID && n.z !== DEVICES_TAB_ID));
    assert.equal(res.status, 200, res.text);
    await eventually("the tab to run again", async () => t.app.devices.endpoints.servedBy("camera").length === 1);
    const after = await flows();
    assert.ok(after.flows.some((n) => n.id === DEVICES_TAB_ID && n.locked === true));
    assert.equal((await upload(4)).body.status, "accepted");
  });
});

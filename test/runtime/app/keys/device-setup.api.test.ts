/**
 * A device key's answer says what its device is set up with (issue 43 §1, the Household page):
 * the address at the household's address (a device cannot reach `localhost`), the message
 * with its key, and a QR code of the address with the key that a camera reads back; at
 * creation and at rotation, never for an API key and never in the list.
 */
import assert from "node:assert/strict";
import jsQR from "jsqr";
import sharp from "sharp";
import type { NetworkInterfaces } from "../../../../runtime/platform/http/household-address";
import { cameraPayload, testJpeg } from "../../../support/jpeg";
import { startTestApp, type TestApp } from "../../../support/test-app";

const nic = (address: string, internal = false) => ({ address, family: "IPv4", internal, netmask: "", mac: "", cidr: null }) as never;
const HOME_NET: NetworkInterfaces = { lo: [nic("127.0.0.1", true)], eth0: [nic("192.168.1.20")] };

/** What a camera would read: the SVG drawn at 400 px, then decoded. */
async function decodeQr(svg: string): Promise<string | undefined> {
  const { data, info } = await sharp(Buffer.from(svg), { density: 300 }).resize(400).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}

describe("admin keys: a device key comes with its device's set-up", function () {
  this.timeout(60_000);
  let t: TestApp;
  let household = "";

  before(async () => {
    // Node-RED: device requests pass through its Devices tab.
    t = await startTestApp({ nodeRed: true, networkInterfaces: () => HOME_NET });
    household = `http://192.168.1.20:${new URL(t.baseUrl).port}`;
    assert.equal((await t.post("/api/v1/sensors", { sensor_id: "porch_cam", name: "Porch camera", sensor_type: "camera" })).status, 201);
    assert.equal((await t.post("/api/v1/sensors", { sensor_id: "bed_screen", name: "Bedside screen", sensor_type: "eink" })).status, 201);
  });
  after(() => t.close());

  it("a camera's: POST to /device/camera at the household's address, its key in the body and in the QR code's address", async () => {
    const res = await t.post("/api/v1/admin/keys", { name: "porch camera", kind: "device", device_type: "camera_device", sensor_id: "porch_cam" });
    assert.equal(res.status, 201, res.text);
    const { key, setup } = res.body;
    assert.equal(setup.method, "POST");
    assert.equal(setup.url, `${household}/api/v1/device/camera`);
    assert.equal(setup.url_with_key, `${household}/api/v1/device/camera?api_key=${key}`);
    assert.equal(setup.body.device_key, key);
    assert.equal(typeof setup.body.data.image, "string");
    assert.match(setup.how, /camera posts each frame/);
    assert.equal(await decodeQr(setup.qr_svg), setup.url_with_key);
    // The address with its key is what the camera then posts to, and it is accepted.
    const frame = await t.request("POST", new URL(setup.url_with_key).pathname + new URL(setup.url_with_key).search, {
      key: null,
      body: cameraPayload(await testJpeg(320, 240, 9)),
    });
    assert.equal(frame.status, 200, frame.text);
    assert.equal(frame.body.status, "accepted");
  });

  it("a display's: it polls GET /image/active, no message; a terminal's: POST /device/terminal with a press", async () => {
    const display = await t.post("/api/v1/admin/keys", { name: "hall display", kind: "device", device_type: "display", sensor_id: "bed_screen" });
    assert.equal(display.status, 201, display.text);
    assert.equal(display.body.setup.method, "GET");
    assert.equal(display.body.setup.url, `${household}/api/v1/image/active`);
    assert.equal(display.body.setup.body, null);
    assert.match(display.body.setup.how, /Authorization: Bearer/);

    const terminal = await t.post("/api/v1/admin/keys", { name: "bedside terminal", kind: "device", device_type: "terminal", sensor_id: "bed_screen" });
    assert.equal(terminal.status, 201, terminal.text);
    assert.equal(terminal.body.setup.url, `${household}/api/v1/device/terminal`);
    assert.deepEqual(terminal.body.setup.body, { device_key: terminal.body.key, button: "single" });
    const press = await t.request("POST", "/api/v1/device/terminal", { key: null, body: terminal.body.setup.body });
    assert.equal(press.status, 200, press.text);
  });

  it("a rotation's answer has the set-up with the new key; an API key's and the list have none", async () => {
    const made = await t.post("/api/v1/admin/keys", { name: "garden camera", kind: "device", device_type: "camera_device", sensor_id: "porch_cam" });
    const rotated = await t.post(`/api/v1/admin/keys/${made.body.id}/rotate`, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.key, made.body.key);
    assert.equal(rotated.body.setup.body.device_key, rotated.body.key);
    assert.equal(await decodeQr(rotated.body.setup.qr_svg), `${household}/api/v1/device/camera?api_key=${rotated.body.key}`);

    const api = await t.post("/api/v1/admin/keys", { name: "nurse", kind: "api", role: "caregiver" });
    assert.equal(api.status, 201, api.text);
    assert.equal(api.body.setup, undefined);
    const list = await t.get("/api/v1/admin/keys");
    assert.ok(list.body.every((k: Record<string, unknown>) => k.setup === undefined && k.key === undefined));
  });
});

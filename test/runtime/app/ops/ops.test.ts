import assert from "node:assert/strict";
import jsQR from "jsqr";
import sharp from "sharp";
import type { NetworkInterfaces } from "../../../../runtime/platform/http/household-address";
import { rawRequest } from "../../../support/raw-http";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

const nic = (address: string, family: "IPv4" | "IPv6", internal = false) => ({ address, family, internal, netmask: "", mac: "", cidr: null }) as never;
/** A household box: loopback first, then the wired card (IPv6 before IPv4), then Wi-Fi. */
const HOME_NET: NetworkInterfaces = {
  lo: [nic("127.0.0.1", "IPv4", true), nic("::1", "IPv6", true)],
  eth0: [nic("fe80::1", "IPv6"), nic("192.168.1.20", "IPv4")],
  wlan0: [nic("10.0.0.5", "IPv4")],
};

/** What a phone camera would read: the SVG drawn at 400 px, then decoded. */
async function decodeQr(svg: string): Promise<string | undefined> {
  const { data, info } = await sharp(Buffer.from(svg), { density: 300 }).resize(400).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}

describe("operations endpoints", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      networkInterfaces: () => HOME_NET,
      settings: {
        app: { timezone: "Europe/Berlin" },
        notifications: { webhook: { url: "http://127.0.0.1:9/hook", headers: { Authorization: "Bearer hook-token" } } },
        llm: { models: [{ id: "m1", api_type: "openai", base_url: "http://127.0.0.1:8000/v1", model: "x", api_key: "sk-secret", capabilities: ["text"] }] },
      },
    });
  });
  after(() => t.close());

  it("GET /health needs no key and reports the database", async () => {
    const res = await t.get("/health", null);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, "ok");
    assert.equal(res.body.database.ok, true);
    assert.equal(res.body.node_red.state, "disabled");
  });

  it("GET /api/v1/admin/app-info needs a key, then gives name, version and timezone", async () => {
    assert.equal((await t.get("/api/v1/admin/app-info", null)).status, 401);
    // The spec's table names it at the root too: the same route, with the same key check.
    assert.equal((await t.get("/admin/app-info", null)).status, 401, "no unauthenticated twin at the root");
    assert.equal((await t.get("/admin/app-info", "wrong-key-0123456789")).status, 401);
    assert.equal((await t.get("/admin/app-info", KEYS.webapp)).status, 403, "the tablet's key is refused there as at /api/v1");
    const root = await t.get("/admin/app-info?x=1", KEYS.caregiver);
    assert.equal(root.status, 200);
    assert.deepEqual(root.body, (await t.get("/api/v1/admin/app-info", KEYS.caregiver)).body);
    const res = await t.get("/api/v1/admin/app-info", KEYS.caregiver);
    assert.equal(res.status, 200);
    assert.equal(res.body.timezone, "Europe/Berlin");
    assert.equal(res.body.name, "careflow");
    assert.match(res.body.version, /^\d+\.\d+\.\d+/);
  });

  /** Where a tablet reaches this app: the host's first network address, with the port it listens on. */
  const household = () => `http://192.168.1.20:${new URL(t.baseUrl).port}`;

  it("GET /api/v1/admin/webapp-link gives one set-up link per webapp key, the key in the fragment, at the host's network address", async () => {
    assert.equal((await t.get("/api/v1/admin/webapp-link", null)).status, 401);
    assert.equal((await t.get("/api/v1/admin/webapp-link", KEYS.webapp)).status, 403);
    // Asked on the box itself (127.0.0.1): localhost would be the tablet itself, so the network address.
    const res = await t.get("/api/v1/admin/webapp-link");
    assert.equal(res.status, 200);
    const url = `${household()}/app/#key=${KEYS.webapp}`;
    assert.deepEqual(
      res.body.links.map((l: { key_name: string; url: string }) => ({ key_name: l.key_name, url: l.url })),
      [{ key_name: "test web app", url }],
    );
    assert.equal(await decodeQr(res.body.links[0].qr_svg), url, "the QR code is the link");
    const page = await fetch(`${t.baseUrl}/app`);
    assert.equal(page.status, 200, "/app redirects to the page at /app/");
    assert.equal(page.url, `${t.baseUrl}/app/`);
    assert.match(await page.text(), /<script src="\/app\/app.js"><\/script>/);
    assert.equal((await fetch(`${t.baseUrl}/app/sw.js`)).headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.equal((await fetch(`${t.baseUrl}/app/nothing.js`)).status, 404);
    // docs/webapp.md shows its screenshots from /docs/images/.
    assert.equal((await fetch(`${t.baseUrl}/docs/images/webapp-idle.png`)).headers.get("content-type"), "image/png");
  });

  it("the set-up link and its QR code are for admin keys only: they hold the web app's key", async () => {
    for (const path of ["/api/v1/admin/webapp-link", "/api/v1/admin/webapp-link/qr.svg", "/api/v1/admin/WebApp-Link", "/api/v1/admin/webapp-link/"]) {
      for (const key of [KEYS.caregiver, KEYS.mcp, KEYS.webapp, KEYS.display, KEYS.terminal]) {
        const res = await t.get(path, key);
        assert.equal(res.status, 403, `${key} ${path}: ${res.status} ${res.text.slice(0, 100)}`);
        assert.ok(!res.text.includes(KEYS.webapp), "no key in the refusal");
      }
    }
    assert.equal((await t.get("/api/v1/admin/webapp-link/qr.svg", null)).status, 401);
  });

  it("GET /api/v1/admin/webapp-link/qr.svg is the link's QR code as an SVG picture", async () => {
    const res = await t.get("/api/v1/admin/webapp-link/qr.svg?key_name=test%20web%20app");
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get("content-type"), "image/svg+xml; charset=utf-8");
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.match(res.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^>]*viewBox="0 0 \d+ \d+"[^>]*>.*<\/svg>\s*$/s);
    assert.ok(!/<script|on\w+=/i.test(res.text), "nothing but shapes");
    assert.equal(await decodeQr(res.text), `${household()}/app/#key=${KEYS.webapp}`);
    // One web app key: its name may be left out.
    assert.equal((await t.get("/api/v1/admin/webapp-link/qr.svg")).text, res.text);
    const unknown = await t.get("/api/v1/admin/webapp-link/qr.svg?key_name=kitchen");
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /No web app key named 'kitchen' \(there are 'test web app'\)/);
    assert.equal((await t.get("/api/v1/admin/webapp-link/qr.svg?key_name=a&key_name=b")).status, 422);
  });

  it("a set-up link asked for at an address the household reaches keeps that address", async () => {
    const res = await rawRequest(Number(new URL(t.baseUrl).port), {
      method: "GET",
      target: "/api/v1/admin/webapp-link",
      headers: { host: "careflow.local:8080", "x-api-key": KEYS.admin },
    });
    assert.equal(res.status, 200, res.body);
    const body = res.json as { links: Array<{ url: string }>; hint: string };
    assert.equal(body.links[0].url, `http://careflow.local:8080/app/#key=${KEYS.webapp}`);
    assert.doesNotMatch(body.hint, /localhost/);
  });

  it("a host with no network address keeps localhost in the link and the hint says so; app.public_url wins over both", async () => {
    const alone = await startTestApp({ networkInterfaces: () => ({ lo: HOME_NET.lo }) });
    const configured = await startTestApp({ networkInterfaces: () => HOME_NET, settings: { app: { public_url: "https://care.example.net/" } } });
    try {
      const local = await alone.get("/api/v1/admin/webapp-link");
      assert.equal(local.body.links[0].url, `http://localhost:${new URL(alone.baseUrl).port}/app/#key=${KEYS.webapp}`);
      assert.match(local.body.hint, /points at localhost, which only this machine opens: set app\.public_url/);
      const set = await configured.get("/api/v1/admin/webapp-link");
      assert.equal(set.body.links[0].url, `https://care.example.net/app/#key=${KEYS.webapp}`);
      assert.doesNotMatch(set.body.hint, /localhost/);
    } finally {
      await alone.close();
      await configured.close();
    }
  });

  it("GET /api/v1/admin/config shows effective settings with every secret redacted", async () => {
    const res = await t.get("/api/v1/admin/config");
    assert.equal(res.status, 200);
    assert.equal(res.body.app.timezone, "Europe/Berlin");
    assert.equal(res.body.image.refresh_window_minutes, 60, "defaults are filled in");
    const text = JSON.stringify(res.body);
    for (const secret of [KEYS.admin, KEYS.caregiver, KEYS.camera, "sk-secret", "hook-token"]) {
      assert.ok(!text.includes(secret), `${secret} leaked`);
    }
    assert.equal(res.body.auth.api_keys[0].key, "***");
    assert.equal(res.body.auth.api_keys[0].name, "test admin");
    assert.equal(res.body.notifications.webhook.headers.Authorization, "***");
  });
});

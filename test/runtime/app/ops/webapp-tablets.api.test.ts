/**
 * The senior's tablet on the Household page (issue 43 §1): a web app key made through
 * `POST /api/v1/admin/keys` answers its tablet's link and QR code once (the key is kept as a
 * digest, so `GET /api/v1/admin/webapp-link` can only name it afterwards), and
 * `GET /api/v1/admin/webapp/tablets` lists the tablets connected to `/ws` now: key name, screen,
 * since when, last seen (the pong to the hub's ping every 30 s), never a key. Over real HTTP and
 * real sockets, on the store the run is given (SQLite, or PostgreSQL with CAREFLOW_TEST_DATABASE_URL).
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { eventually } from "../../../support/eventually";
import { KEYS, startTestApp, type TestApp } from "../../../support/test-app";

interface Tablet {
  key_name: string;
  key_id: number | null;
  tablet_id: string | null;
  connected_at: string;
  last_seen_at: string;
}

describe("the senior's tablet: its link made here, and the tablets connected now", function () {
  this.timeout(60_000);
  const clock = new ManualClock(Date.parse("2026-03-02T08:00:00Z"));
  let t: TestApp;
  const sockets: WebSocket[] = [];

  /** A web app on `/ws` with `key` as the subprotocol, named `tablet`; resolves once open. */
  const openTablet = async (key: string, tablet: string): Promise<WebSocket> => {
    const ws = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws?tablet=${tablet}`, [key]);
    sockets.push(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return ws;
  };
  const closed = (ws: WebSocket) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once("close", () => resolve())));
  const tablets = async (key = KEYS.caregiver): Promise<{ body: { tablets: Tablet[] }; text: string }> => {
    const res = await t.get<{ tablets: Tablet[] }>("/api/v1/admin/webapp/tablets", key);
    assert.equal(res.status, 200, res.text);
    return res;
  };

  before(async () => {
    // Pings every 200 ms of real time (30 s by default), so a silent screen is cut off here in a moment.
    t = await startTestApp({ clock, settings: { websocket: { ping_seconds: 0.2 } } });
  });
  after(async () => {
    for (const ws of sockets) ws.terminate();
    await t?.close();
  });

  let made: { id: number; name: string; key: string; setup: { url: string; qr_svg: string; how: string } };

  it("making a web app key answers its tablet's link and QR code, once", async () => {
    const res = await t.post("/api/v1/admin/keys", { name: "Mum's tablet", kind: "api", role: "webapp" });
    assert.equal(res.status, 201, res.text);
    made = res.body;
    assert.match(made.setup.url, /^http:\/\/[^/]+\/app\/#key=/);
    assert.equal(decodeURIComponent(made.setup.url.split("#key=")[1]), made.key);
    assert.match(made.setup.qr_svg, /<svg[^>]*>/);
    assert.match(made.setup.how, /Open the link once on the senior's tablet/);
    // A key of another role carries no link.
    const caregiver = await t.post("/api/v1/admin/keys", { name: "Anna phone", kind: "api", role: "caregiver" });
    assert.equal(caregiver.body.setup, undefined);
    // Afterwards the link is not to be had again: the list names the key, the settings' key keeps its link.
    const link = await t.get("/api/v1/admin/webapp-link");
    assert.equal(link.status, 200, link.text);
    assert.deepEqual(
      link.body.links.map((l: { key_name: string }) => l.key_name),
      ["test web app"],
    );
    assert.deepEqual(
      link.body.made_here.map((k: { id: number; key_name: string }) => [k.id, k.key_name]),
      [[made.id, "Mum's tablet"]],
    );
    assert.ok(!link.text.includes(made.key), "the key made here is not in the list of links");
  });

  it("the link's key connects as the tablet; the list shows it to a caregiver, without any key", async () => {
    assert.deepEqual((await tablets()).body.tablets, []);
    const connectedAt = new Date(clock.now()).toISOString();
    await openTablet(made.key, "kitchen-tablet-0001");
    // A caregiver's own socket (the tracking view) is no tablet.
    await openTablet(KEYS.caregiver, "caregiver-screen-01");
    const res = await eventually("the tablet listed", async () => ((await tablets()).body.tablets.length ? tablets() : null));
    assert.deepEqual(res.body.tablets, [
      { key_name: "Mum's tablet", key_id: made.id, tablet_id: "kitchen-tablet-0001", connected_at: connectedAt, last_seen_at: connectedAt },
    ]);
    assert.ok(!res.text.includes(made.key) && !res.text.includes(KEYS.webapp), "no key in the answer");
    // The assistant's key reads it too; a tablet's or a device's key does not.
    assert.equal((await t.get("/api/v1/admin/webapp/tablets", KEYS.mcp)).status, 200);
    assert.equal((await t.get("/api/v1/admin/webapp/tablets", KEYS.webapp)).status, 403);
    assert.equal((await t.get("/api/v1/admin/webapp/tablets", KEYS.display)).status, 403);
    assert.equal((await t.get("/api/v1/admin/webapp/tablets", null)).status, 401);
  });

  it("last seen moves with the pong to the hub's ping; the connected time stays", async () => {
    const before = (await tablets()).body.tablets[0];
    clock.advance(30_000);
    const pinged = new Date(clock.now()).toISOString();
    const after = await eventually("the pong noted", async () => {
      const now = (await tablets()).body.tablets[0];
      return now.last_seen_at === pinged ? now : null;
    });
    assert.equal(after.connected_at, before.connected_at);
  });

  it("cuts off a screen that answers no ping (gone from the Wi-Fi without closing), so it stops counting as one", async () => {
    const silent = new WebSocket(`${t.baseUrl.replace("http", "ws")}/ws?tablet=gone-tablet-0003`, [KEYS.webapp], { autoPong: false });
    sockets.push(silent);
    await new Promise<void>((resolve, reject) => {
      silent.once("open", () => resolve());
      silent.once("error", reject);
    });
    await eventually("the silent screen listed", async () => (await tablets()).body.tablets.some((x) => x.tablet_id === "gone-tablet-0003"));
    await closed(silent);
    await eventually("the silent screen no longer listed", async () => !(await tablets()).body.tablets.some((x) => x.tablet_id === "gone-tablet-0003"));
    // The tablet that answers its pings stays.
    assert.deepEqual(
      (await tablets()).body.tablets.map((x) => x.tablet_id),
      ["kitchen-tablet-0001"],
    );
  });

  it("a settings-file tablet is listed beside it, by connection time; one that goes is no longer listed", async () => {
    clock.advance(1000);
    const second = await openTablet(KEYS.webapp, "bedroom-tablet-02");
    await eventually("two tablets", async () => (await tablets()).body.tablets.length === 2);
    const both = (await tablets()).body.tablets;
    assert.deepEqual(
      both.map((x) => [x.key_name, x.key_id, x.tablet_id]),
      [
        ["Mum's tablet", made.id, "kitchen-tablet-0001"],
        ["test web app", null, "bedroom-tablet-02"],
      ],
    );
    second.close();
    await closed(second);
    await eventually("the bedroom tablet gone", async () => (await tablets()).body.tablets.length === 1);
  });

  it("rotating the key answers a new link and ends the tablet's connection", async () => {
    const res = await t.post(`/api/v1/admin/keys/${made.id}/rotate`, {});
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.body.key, made.key);
    assert.equal(decodeURIComponent(res.body.setup.url.split("#key=")[1]), res.body.key);
    await eventually("the old key's tablet gone", async () => (await tablets()).body.tablets.length === 0);
  });

  it("with no settings key, the links are none and the hint names the key made here", async () => {
    const alone = await startTestApp({
      settings: { auth: { api_keys: [{ key: KEYS.admin, name: "test admin", permissions: ["admin"] }], device_keys: [] } },
    });
    try {
      const none = await alone.get("/api/v1/admin/webapp-link");
      assert.deepEqual([none.body.links, none.body.made_here], [[], []]);
      assert.match(none.body.hint, /make the tablet's link on the Household page/);
      assert.equal((await alone.post("/api/v1/admin/keys", { name: "Tablet", kind: "api", role: "webapp" })).status, 201);
      const one = await alone.get("/api/v1/admin/webapp-link");
      assert.deepEqual(one.body.links, []);
      assert.match(one.body.hint, /'Tablet'\) had their link shown once/);
    } finally {
      await alone.close();
    }
  });
});

/** The `npm start` entry point as an operator runs it: refuses bad settings, seeds the demo, stops cleanly. */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runToExit, startService } from "../../../support/service-process";

describe("the service process", function () {
  this.timeout(40000);
  const dirs: string[] = [];
  const tmpDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), "careflow-proc-"));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("refuses to start with invalid settings and names the bad key", async () => {
    const dir = tmpDir();
    const file = path.join(dir, "settings.json");
    fs.writeFileSync(file, JSON.stringify({ app: { timezone: "Nowhere/City" } }));
    const res = await runToExit({ CAREFLOW_SETTINGS: file, CAREFLOW_DATA_DIR: dir, PORT: "0" });
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /app\.timezone/);
  });

  it("serves a demo household on first start, prints its keys, keeps them across restarts and stops on SIGTERM", async () => {
    const dataDir = tmpDir();
    const env = { CAREFLOW_DATA_DIR: dataDir, CAREFLOW_ADMIN_KEY: "operator-admin-key" };
    const first = await startService(env);
    try {
      assert.match(first.stdout(), /demo household/);
      assert.match(first.stdout(), /\/editor/);
      // The tablet's link points where the household's devices reach careflow, the same as the start says it does.
      const pointsAt = /set-up link points at (http:\/\/\S+);/.exec(first.stdout())?.[1];
      assert.ok(pointsAt, first.stdout());
      assert.match(first.stdout(), new RegExp(`Web app: +${pointsAt.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/app/#key=`));
      const keys = JSON.parse(fs.readFileSync(path.join(dataDir, "demo-keys.json"), "utf8"));
      const demoAdmin = keys.api_keys.find((k: { permissions: string[] }) => k.permissions.includes("admin")).key;
      assert.ok(first.stdout().includes(demoAdmin), "the demo admin key is printed");
      const rooms = await fetch(`${first.baseUrl}/api/v1/rooms`, { headers: { "x-api-key": demoAdmin } });
      assert.deepEqual(
        ((await rooms.json()) as Array<{ name: string }>).map((r) => r.name),
        ["kitchen", "bedroom", "bathroom", "hallway", "living room"],
      );
      const sensors = (await (await fetch(`${first.baseUrl}/api/v1/sensors`, { headers: { "x-api-key": "operator-admin-key" } })).json()) as Array<{
        sensor_type: string;
      }>;
      for (const type of ["camera", "presence", "light", "eink"])
        assert.ok(
          sensors.some((s) => s.sensor_type === type),
          `a ${type} sensor`,
        );
      const persons = (await (await fetch(`${first.baseUrl}/api/v1/persons`, { headers: { "x-api-key": demoAdmin } })).json()) as unknown[];
      assert.equal(persons.length, 1);
      // The demo's knowledge: the senior can be answered from it, and a card and a quiz are ready for a rule.
      const ask = await fetch(`${first.baseUrl}/api/v1/knowledge/query`, {
        method: "POST",
        headers: { "x-api-key": demoAdmin, "content-type": "application/json" },
        body: JSON.stringify({ query: "When is Anna coming?" }),
      });
      const answer = (await ask.json()) as { found: boolean; answer: string };
      assert.equal(answer.found, true);
      assert.match(answer.answer, /Sunday at three/);
      for (const kind of ["info-cards", "quizzes"]) {
        const list = (await (await fetch(`${first.baseUrl}/api/v1/${kind}?status=approved`, { headers: { "x-api-key": demoAdmin } })).json()) as {
          total: number;
        };
        assert.equal(list.total, 1, `an approved demo ${kind}`);
      }
    } finally {
      assert.equal(await first.stop("SIGTERM"), 0, "a SIGTERM stop exits 0");
    }

    const second = await startService(env);
    try {
      assert.doesNotMatch(second.stdout(), /serving a demo household/, "no second seeding");
      const keys = JSON.parse(fs.readFileSync(path.join(dataDir, "demo-keys.json"), "utf8"));
      // Every start says where the tablet's set-up link is, without printing the key it holds.
      assert.match(second.stdout(), /set-up link points at http:\/\/\S+; .*\n.*\/api\/v1\/admin\/webapp-link\/qr\.svg\?api_key=<admin key>/);
      // ... and where the pages are, as on the first start.
      assert.match(second.stdout(), /Editor: +http:\/\/localhost:\d+\/editor/);
      assert.match(second.stdout(), /Knowledge page: +http:\/\/localhost:\d+\/knowledge\//);
      assert.match(second.stdout(), /Senior's tablet: +http:\/\/\S+\/app\//);
      const webappKey = keys.api_keys.find((k: { permissions: string[] }) => k.permissions.includes("webapp")).key;
      assert.ok(!second.stdout().includes(webappKey), "the web app key is not printed again");
      const cam = keys.device_keys.find((d: { device_type: string }) => d.device_type === "camera_device").key;
      const rooms = await fetch(`${second.baseUrl}/api/v1/rooms`, { headers: { "x-api-key": keys.api_keys[0].key } });
      assert.equal(rooms.status, 200, "demo keys still work after a restart");
      assert.equal(((await rooms.json()) as unknown[]).length, 5, "rooms not seeded twice");
      const denied = await fetch(`${second.baseUrl}/api/v1/rooms?api_key=${cam}`);
      assert.equal(denied.status, 403, "a camera device key cannot list rooms");
    } finally {
      assert.equal(await second.stop("SIGTERM"), 0);
    }
  });
});

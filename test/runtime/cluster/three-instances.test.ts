/**
 * Three careflow processes on the machine's PostgreSQL and NATS, started by the launcher of
 * `npm run cluster` (runtime/app/ops/cluster-launcher.ts), driven round-robin over REST, with one
 * of them killed -9 at random several times and started again (issue 28, "Test as a provider
 * would"). PostgreSQL pass only (CAREFLOW_TEST_DATABASE_URL): SQLite cannot be shared.
 *
 * Timing is real (three processes cannot share a ManualClock), so the file has the machine to
 * itself (test/support/machine-solo.ts): the cron rule ticks every 2 s
 * (node-cron's seconds field) and leases last 2 s, so a kill's failover takes at most 2.7 s
 * (1 s leases flap on a loaded 2-core machine: a renewal round is late more often than not).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import WebSocket from "ws";
import { startCluster, type ClusterInstance, type RunningCluster } from "../../../runtime/app/ops/cluster-launcher";
import { sharedPg, type SharedPg } from "../../support/pg-cluster";
import { startFakeChat, type FakeChat } from "../../fakes/chat-server";
import { startFakeHub, type FakeHub } from "../../fakes/hub-server";
import { cameraPayload, testJpeg } from "../../support/jpeg";
import { giveTheMachineBack, haveTheMachineAlone } from "../../support/machine-solo";

const ADMIN = "adm_three-instances-test-key-0001";
const CAMERA = "CAMKEY01";
const TICK_MS = 2000;
const KILLS = 3;
const FAILOVER_LIMIT_MS = 5000;
const LEASED = ["cron", "chat-poller", "hub"] as const;
const LEASE_MS = 2000;
type Leased = (typeof LEASED)[number];

interface Kill {
  victim: string;
  at: number;
  /** The leases the victim held when it died, and how long each took to be working elsewhere. */
  failover: Partial<Record<Leased, number>>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, fn: () => Promise<T | false | null | undefined>, timeoutMs: number, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

describe("cluster: three processes on one PostgreSQL, kill -9 at random", function () {
  this.timeout(180_000);
  let pg: SharedPg;
  let chat: FakeChat;
  let hub: FakeHub;
  let cluster: RunningCluster;
  const hubAuths: number[] = [];
  /** Each instance's last log lines, shown when something fails. */
  const logs = new Map<string, string[]>();
  const kills: Kill[] = [];
  /** When each instance held `cron`, from its own log lines (acquired → not renewed, lost or killed). */
  const cronHeld: Array<{ id: string; from: number; to: number }> = [];
  const cronLog = (id: string, line: string) => {
    if (!line.includes('"cron"')) return;
    const e = JSON.parse(line) as { msg: string; lease?: string; time: string };
    if (e.lease !== "cron") return;
    if (e.msg === "cluster: lease acquired") cronHeld.push({ id, from: Date.parse(e.time), to: Infinity });
    else cronHeld.filter((h) => h.id === id && h.to === Infinity).forEach((h) => (h.to = Date.parse(e.time)));
  };
  const cronEnded = (id: string, at: number) => cronHeld.filter((h) => h.id === id && h.to === Infinity).forEach((h) => (h.to = at));
  let cronRule = 0;
  let cronFrom = 0;
  let cronUntil = 0;
  /** What the client on the live feed of instance C (never killed) saw: execution ids per rule. */
  const feedRuns = new Map<number, Set<number>>();
  let feed: WebSocket | undefined;
  let feedFrom = 0;

  const inst = () => cluster.instances;
  /** C, the instance whose live feed a client watches; it is spared so the client stays connected. */
  const c = () => inst()[2];
  let turn = 0;
  /** The next live instance, round-robin. */
  const next = (): ClusterInstance => {
    for (let i = 0; i < inst().length; i++) {
      const candidate = inst()[turn++ % inst().length];
      if (candidate.running) return candidate;
    }
    throw new Error("no instance is running");
  };
  const call = async (i: ClusterInstance, method: string, path: string, body?: unknown, key: string = ADMIN) => {
    const res = await fetch(`${i.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as any) : null };
  };
  const holders = async (via: ClusterInstance): Promise<Map<string, string | null>> => {
    const res = await call(via, "GET", "/api/v1/admin/cluster");
    assert.equal(res.status, 200, res.text);
    return new Map((res.body.leases as Array<{ name: string; holder: string | null }>).map((l) => [l.name, l.holder]));
  };
  const byId = (id: string) => inst().find((i) => i.id === id)!;
  const importRule = async (via: ClusterInstance, bundle: Record<string, unknown>): Promise<number> => {
    const res = await call(via, "POST", "/api/v1/rules/import", { schema_version: 1, edges: [], ...bundle });
    assert.equal(res.status, 201, res.text);
    return res.body.rule_id as number;
  };
  const runsOf = async (ruleId: number): Promise<Array<Record<string, any>>> => {
    const res = await call(next(), "GET", `/api/v1/workflows?rule_id=${ruleId}&limit=200`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const dump = () => [...logs].map(([id, lines]) => `--- ${id}\n${lines.slice(-15).join("\n")}`).join("\n");

  before(async function () {
    if (!process.env.CAREFLOW_TEST_DATABASE_URL) {
      process.stdout.write("\n    SKIPPED: three processes need PostgreSQL (the PostgreSQL pass sets CAREFLOW_TEST_DATABASE_URL)\n");
      this.skip();
    }
    // Its leases and ticks are real time: it runs with no other test file on the machine.
    await haveTheMachineAlone(this);
    this.timeout(180_000);
    pg = await sharedPg(this);
    chat = await startFakeChat({ token: "77:three-token", chats: [{ id: 1001, type: "private" }] });
    hub = await startFakeHub({ log: (line) => line.includes("auth_ok") && hubAuths.push(Date.now()) });
    cluster = await startCluster({
      count: 3,
      databaseUrl: pg.url,
      natsUrl: process.env.CAREFLOW_TEST_NATS_URL ?? "nats://127.0.0.1:4222",
      basePort: 0,
      dataRoot: pg.dataDir,
      adminKey: ADMIN,
      idPrefix: "three",
      leaseSeconds: LEASE_MS / 1000,
      settings: {
        auth: { device_keys: [{ key: CAMERA, sensor_id: "kitchen_cam", device_type: "camera_device", permissions: ["device:camera"] }] },
        hub: { url: hub.url, token: hub.token },
        notifications: {
          chat_app: { api_base_url: chat.url, token: "77:three-token", poll_timeout_seconds: 1, targets: [{ name: "Anna", chat_id: 1001 }] },
          // An emergency re-sends every 3 s, 6 times at most: short enough to watch across a kill.
          levels: { emergency: { channels: ["pwa_popup_text"], escalation_minutes: 0.05, repeat_count: 6 } },
        },
        aggregator: { batch_size: 5, window_seconds: 4, cooldown_seconds: 1 },
      },
      // The household and its cron rule are set up through the first instance; the others load
      // the rules at their start. (A rule made later on one instance reaches the others' flows
      // with wt-fanout's flow reload: see the pending test below.)
      afterFirst: async (first) => {
        const kitchen = await call(first, "POST", "/api/v1/rooms", { name: "kitchen" });
        assert.equal(kitchen.status, 201, kitchen.text);
        const pir = await call(first, "POST", "/api/v1/sensors", { sensor_id: "hall_pir", sensor_type: "presence", room_id: kitchen.body.id });
        assert.equal(pir.status, 201, pir.text);
        cronRule = await importRule(first, {
          rule: { name: "Every two seconds", trigger_type: "cron", schedule_cron: "*/2 * * * * *", primary_sensor_ref: { kind: "sensor", label: "hall_pir" } },
          steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
        });
      },
      onLine: (id, line) => {
        cronLog(id, line);
        logs.set(id, [...(logs.get(id) ?? []).slice(-40), line]);
        // CLUSTER_TEST_LOG=<file> keeps every line of every instance, for a failure's story.
        if (process.env.CLUSTER_TEST_LOG) fs.appendFileSync(process.env.CLUSTER_TEST_LOG, `[${id}] ${line}\n`);
      },
    });
    feed = new WebSocket(`${c().url.replace("http", "ws")}/ws/pipeline`, [ADMIN]);
    feed.on("message", (data) => {
      const e = JSON.parse(String(data)) as { rule_id: number; execution_id: number };
      feedRuns.set(e.rule_id, (feedRuns.get(e.rule_id) ?? new Set()).add(e.execution_id));
    });
    await new Promise((resolve, reject) => feed!.once("open", resolve).once("error", reject));
    feedFrom = Date.now();
  });

  after(async () => {
    feed?.close();
    await cluster?.stop();
    await chat?.close();
    await hub?.stop();
    await pg?.drop();
    giveTheMachineBack();
  });

  afterEach(function () {
    if (this.currentTest?.state === "failed") process.stdout.write(`\n${dump()}\n`);
  });

  it("moves cron, the chat poller and the hub to a survivor within 5 s of each kill -9, and takes the victim back", async () => {
    const runs = await until("the first cron runs", async () => (await runsOf(cronRule)).at(-1), 6000, 200);
    cronFrom = Date.parse(runs.started_at as string);

    for (let k = 0; k < KILLS; k++) {
      const before = await holders(c());
      // Each kill takes a holder of a lease whose failover is not yet measured, else a random
      // instance; C is spared (its live-feed client stays connected).
      const measured = new Set(kills.flatMap((x) => Object.keys(x.failover)));
      const wanted = LEASED.map((name) => before.get(name)).find((h, i) => h && h !== c().id && !measured.has(LEASED[i]));
      const victim = wanted ? byId(wanted) : inst()[Math.floor(Math.random() * 2)];
      const held = LEASED.filter((name) => before.get(name) === victim.id);
      // Between ticks, once the last tick's run is in the store: a run just started may still be
      // on its way to the store (the engine's group commit), and kill -9 loses it on one box as
      // well. Given up after 3 s (a tick no instance held is never written).
      for (const end = Date.now() + 3000; Date.now() < end; await sleep(20)) {
        const phase = Date.now() % TICK_MS;
        if (phase < 300 || phase > TICK_MS - 400) continue;
        // Ids come in blocks per instance: the newest run is the latest started, not the highest id.
        const newest = Math.max(0, ...(await runsOf(cronRule)).map((r) => Date.parse(r.started_at as string)));
        if (newest >= Date.now() - phase && Date.now() % TICK_MS < TICK_MS - 300) break;
      }
      const kill: Kill = { victim: victim.id, at: Date.now(), failover: {} };
      kills.push(kill);
      await victim.kill();
      cronEnded(victim.id, kill.at);
      const since = kill.at;
      await Promise.all(
        held.map(async (name) => {
          if (name === "cron")
            await until(
              "cron on a survivor",
              async () => {
                const h = (await holders(c())).get("cron");
                return h && h !== victim.id;
              },
              FAILOVER_LIMIT_MS * 2,
            );
          if (name === "chat-poller") await chat.waitFor((call) => call.method === "getUpdates" && call.at > since, FAILOVER_LIMIT_MS * 2);
          if (name === "hub") await until("a new hub connection", async () => hubAuths.some((t) => t > since), FAILOVER_LIMIT_MS * 2);
          kill.failover[name] = Date.now() - since;
        }),
      );
      await victim.start();
      await sleep(TICK_MS);
    }
    cronUntil = Date.now() - TICK_MS;
    await sleep(TICK_MS);

    process.stdout.write(
      `      kills: ${kills
        .map(
          (k) =>
            `${k.victim} (${
              Object.entries(k.failover)
                .map(([n, ms]) => `${n} ${ms} ms`)
                .join(", ") || "held nothing"
            })`,
        )
        .join("; ")}\n`,
    );
    // Every lease's failover was seen, unless (after a flap under load) it sat on the spared C.
    const measured = new Set(kills.flatMap((x) => Object.keys(x.failover)));
    const onC = await holders(c());
    assert.deepEqual(
      [...LEASED].filter((name) => !measured.has(name) && onC.get(name) !== c().id),
      [],
      "every lease's failover was seen at least once",
    );
    for (const k of kills)
      for (const [name, ms] of Object.entries(k.failover)) assert.ok(ms < FAILOVER_LIMIT_MS, `${name} took ${ms} ms to move after ${k.victim} died`);
    // Every instance is back and sees the others.
    const list = await call(c(), "GET", "/api/v1/admin/cluster");
    assert.deepEqual(
      (list.body.instances as Array<{ instance_id: string; alive: boolean }>).filter((i) => i.alive).map((i) => i.instance_id),
      inst().map((i) => i.id),
    );
    assert.equal(hub.connections(), 1, "one hub connection, from the holder");
  });

  it("fires every cron tick once: none doubled, none lost while an instance held the lease", async function () {
    if (!cronRule) this.skip();
    const runs = await runsOf(cronRule);
    const perTick = new Map<number, number>();
    for (const r of runs) {
      const tick = Math.floor(Date.parse(r.started_at as string) / TICK_MS) * TICK_MS;
      perTick.set(tick, (perTick.get(tick) ?? 0) + 1);
    }
    const doubled = [...perTick].filter(([, n]) => n > 1).map(([t]) => new Date(t).toISOString());
    const show = (t: string) =>
      runs.filter((r) => Math.floor(Date.parse(r.started_at as string) / TICK_MS) * TICK_MS === Date.parse(t)).map((r) => `${r.id}@${r.started_at}`);
    assert.deepEqual(doubled.map(show), [], "ticks fired twice");
    // A tick due while no live instance held `cron` (its holder killed, or too slow to renew
    // on this loaded machine, and no survivor's round yet) is skipped, as a single box's missed
    // ticks are (docs/decisions.md). Every tick due while an instance held it fires: a new
    // holder needs a moment to read the rules and arm, up to a second on a loaded machine. An instance logs that
    // it lost the lease when it notices, which after a stall of its event loop (this machine
    // under a full test run) is up to the lease and a third after its last renewal: a tick due
    // in that span may have found it stalled, not live, so it is not counted as held.
    const held = (t: number) => cronHeld.some((h) => t >= h.from + 1000 && t < h.to - (LEASE_MS * 4) / 3);
    const lost: string[] = [];
    for (let t = Math.ceil(cronFrom / TICK_MS) * TICK_MS; t <= cronUntil; t += TICK_MS) if (!perTick.has(t) && held(t)) lost.push(new Date(t).toISOString());
    let skipped = 0;
    for (let t = Math.ceil(cronFrom / TICK_MS) * TICK_MS; t <= cronUntil; t += TICK_MS) if (!perTick.has(t)) skipped++;
    process.stdout.write(`      cron: ${perTick.size} ticks fired, ${skipped} skipped while no instance held the lease\n`);
    assert.deepEqual(lost, [], `ticks lost while an instance held cron (${runs.length} runs; held ${JSON.stringify(cronHeld)})`);
    assert.ok(perTick.size >= (cronUntil - cronFrom) / TICK_MS / 2, `only ${perTick.size} ticks fired`);
  });

  it("fires a cron rule made through an instance that does not hold cron", async () => {
    const h = (await holders(c())).get("cron");
    const other = inst().find((i) => i.id !== h && i.running)!;
    const rule = await importRule(other, {
      rule: { name: "Made elsewhere", trigger_type: "cron", schedule_cron: "*/2 * * * * *", primary_sensor_ref: { kind: "sensor", label: "hall_pir" } },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
    });
    await until("a run of the rule made elsewhere", async () => (await runsOf(rule)).length >= 2, 15_000, 200);
  });

  it("shows every cron run on the live feed of instance C, wherever it ran", async () => {
    // The runs started once the client was connected (a feed has no history).
    const runs = (await runsOf(cronRule)).filter((r) => Date.parse(r.started_at as string) > feedFrom + 100);
    const seen = feedRuns.get(cronRule) ?? new Set<number>();
    const missing = runs.map((r) => r.id as number).filter((id) => !seen.has(id));
    assert.deepEqual(missing, [], `C's feed missed ${missing.length} of ${runs.length} runs`);
  });

  it("resumes every parked wait once when the instance that parked it is killed", async () => {
    const rule = await importRule(next(), {
      rule: { name: "Pause", trigger_type: "webhook" },
      steps: [
        { label: "pause", step_type: "wait", schema_version: 2, config: { duration_minutes: 0.05 } },
        { label: "after", step_type: "condition", config: { expression: "true" } },
      ],
    });
    const secret = (await call(next(), "POST", `/api/v1/webhooks/${rule}/generate-secret`)).body.secret as string;
    const fired: Array<{ id: number; on: string }> = [];
    for (let i = 0; i < 6; i++) {
      const via = next();
      const res = await fetch(`${via.url}/api/v1/webhooks/${rule}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-webhook-secret": secret },
        body: "{}",
      });
      fired.push({ id: ((await res.json()) as { execution_id: number }).execution_id, on: via.id });
    }
    const victim = inst()[Math.floor(Math.random() * 2)];
    await victim.kill();
    const runs = await until(
      "every parked run completed",
      async () => {
        const list = await runsOf(rule);
        return list.length === fired.length && list.every((r) => r.status === "completed") && list;
      },
      15_000,
      200,
    );
    await victim.start();
    for (const r of runs) {
      const after = (r.step_timings as Array<{ label: string }>).filter((t) => t.label === "after");
      assert.equal(after.length, 1, `run ${r.id} resumed once`);
    }
  });

  it("escalates an emergency once per interval across a kill, and stops on an acknowledgement made through another instance", async () => {
    const rule = await importRule(next(), {
      rule: { name: "Fall", trigger_type: "webhook" },
      steps: [{ label: "alert", step_type: "notification", config: { alert_level: "emergency", message_template: "Anna fell" } }],
    });
    const secret = (await call(next(), "POST", `/api/v1/webhooks/${rule}/generate-secret`)).body.secret as string;
    await fetch(`${next().url}/api/v1/webhooks/${rule}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-webhook-secret": secret },
      body: "{}",
    });
    const alert = await until("the alert", async () => ((await call(next(), "GET", "/api/v1/alerts")).body as Array<Record<string, any>>)[0], 5000, 200);
    type Sent = { escalation_count: number; history: Array<{ event: string; channel: string | null; escalation: number }> };
    const read = async () => (await call(c(), "GET", `/api/v1/alerts/${alert.id}`)).body as Sent;
    await until("the first re-send", async () => (await read()).escalation_count >= 1, 6000, 200);
    // The holder of the escalation lease dies after the first re-send (else a random one; C spared).
    const h = (await holders(c())).get("escalation");
    const victim = h && h !== c().id ? byId(h) : inst()[Math.floor(Math.random() * 2)];
    await victim.kill();
    await until("the second re-send, from a survivor", async () => (await read()).escalation_count >= 2, 10_000, 200);
    // Acknowledged through C, whichever instance raised it; nothing more is sent.
    assert.equal((await call(c(), "POST", `/api/v1/alerts/${alert.id}/action`, { action: "dismiss" })).status, 200);
    const stopped = (await read()).escalation_count;
    await sleep(7000); // two more intervals
    const sent = await read();
    assert.equal(sent.escalation_count, stopped, "an acknowledged emergency escalates no more");
    // One receipt per send (delivered, or failed when no web app listens).
    const popups = sent.history.filter((e) => e.channel === "pwa_popup_text" && ["delivered", "failed"].includes(e.event)).map((e) => e.escalation);
    assert.deepEqual(popups, [...new Set(popups)], `each escalation sent once: ${popups.join(", ")}`);
    assert.deepEqual(
      popups,
      Array.from({ length: stopped + 1 }, (_, i) => i),
      `none skipped: ${JSON.stringify(sent.history)}`,
    );
    await victim.start();
  });

  it("fires a camera rule once per batch, whichever instances the frames reached, across a kill", async () => {
    const rule = await importRule(next(), {
      rule: { name: "Kitchen look", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "kitchen_cam" } },
      steps: [{ label: "c", step_type: "condition", config: { expression: "true" } }],
    });
    // Three frames a batch, one to each instance, closed by the 4 s window (batch_size is 5);
    // during the second batch's window an instance dies. The frames are made first: under load
    // making them could outlast the window.
    const jpegs = await Promise.all(Array.from({ length: 9 }, (_, i) => testJpeg(64, 48, i)));
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 3; i++) {
        const via = next();
        const res = await fetch(`${via.url}/api/v1/device/camera`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": CAMERA },
          body: JSON.stringify(cameraPayload(jpegs[batch * 3 + i])),
        });
        assert.equal(res.status, 200, `frame ${i} of batch ${batch} through ${via.id}`);
      }
      if (batch === 1) await inst()[Math.floor(Math.random() * 2)].kill();
      await sleep(batch === 1 ? 9000 : 6000); // window 4 s + cooldown 1 s (+ a failover)
    }
    for (const i of inst()) if (!i.running) await i.start();
    const runs = await runsOf(rule);
    assert.equal(runs.length, 3, `one run per batch, got ${runs.length}`);
    const frames = runs.map((r) => `${r.id}@${r.started_at}: ${(r.trigger_context?.media_paths ?? []).length}`);
    for (const r of runs) assert.equal((r.trigger_context?.media_paths ?? []).length, 3, `each run saw its batch's three frames: ${frames.join(", ")}`);
  });
});

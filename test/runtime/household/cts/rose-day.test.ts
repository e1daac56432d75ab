/**
 * The fake tracking service's scripted day (test/fakes/cts-script.ts, what `npm run fake-cts`
 * plays), played into careflow over the real broker: where Rose ends up, the kitchen track
 * corrected from Tom to her, and the night's and the afternoon's signals, the stillness one
 * raised to an emergency and alerting twice.
 */
import assert from "node:assert/strict";
import { startTestApp, type TestApp } from "../../../support/test-app";
import { eventually } from "../../../support/eventually";
import { deleteStreams, NATS_URL, requireNats, uniquePrefix } from "../../../support/nats";
import { CtsPublisher } from "../../../fakes/cts-publisher";
import { CAMERAS, roseDay } from "../../../fakes/cts-script";
import { play } from "../../../fakes/cts-player";

describe("continuous tracking: Rose's scripted day", function () {
  this.timeout(90_000);
  let t: TestApp;
  let pub: CtsPublisher;
  const prefix = uniquePrefix("streams");
  const fired: string[] = [];

  before(async function () {
    await requireNats(this);
    pub = await CtsPublisher.connect(NATS_URL, prefix);
    t = await startTestApp({ settings: { cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix, cameras: CAMERAS } } });
    await t.post("/api/v1/persons", { person_id: "rose", display_name: "Rose" });
    await t.post("/api/v1/persons", { person_id: "tom", display_name: "Tom" });
    t.app.ctx.bus.subscribe("cts.signal", (s) => fired.push(s.signal_id));
    await eventually("the broker link", () => t.app.cts.health().state === "connected");
  });
  after(async () => {
    await t?.close();
    await pub?.close();
    await deleteStreams(NATS_URL, prefix).catch(() => undefined);
  });

  it("ends with Rose in the living room, the kitchen stay hers, and every signal stored and alerted", async () => {
    // 3,600x: a minute of the day in 17 ms, so a revision comes after the event it corrects.
    await play(pub, roseDay(), 3600);
    await eventually(
      "the last signal",
      async () => {
        await t.app.cts.idle();
        return fired.length >= 4;
      },
      30_000,
    );
    assert.equal((await t.get("/api/v1/persons/rose/location")).body.room_name, "Living Room");
    const rose = ((await t.get("/api/v1/persons/rose/history?hours=24")).body as Array<{ room_name: string }>).map((h) => h.room_name);
    assert.ok(rose.includes("Kitchen"), JSON.stringify(rose));
    const tom = (await t.get("/api/v1/persons/tom/history?hours=24")).body as unknown[];
    assert.deepEqual(tom, [], "the kitchen track was never Tom");
    assert.deepEqual(fired, ["sig-pacing-night", "sig-night-move", "sig-still-pm", "sig-still-pm"]);
    const signals = (await t.get("/api/v1/cts/signals")).body as Array<{ signal_id: string; severity: string; details: { minutes: number } }>;
    const still = signals.find((s) => s.signal_id === "sig-still-pm");
    assert.equal(still?.severity, "emergency");
    assert.equal(still?.details.minutes, 150);
    assert.equal(signals.length, 3);
  });
});

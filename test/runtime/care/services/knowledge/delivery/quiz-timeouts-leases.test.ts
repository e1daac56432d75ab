/**
 * Quiz timeouts with two instances on the machine's PostgreSQL (one ManualClock): a session
 * started through either instance times out once (the row is claimed, open → timed_out), and a
 * session whose instance dies still times out, on the `quiz-timeouts` lease holder.
 */
import assert from "node:assert/strict";
import { startKnowledgeDelivery, startQuiz } from "../../../../../../runtime/care/services/knowledge/delivery";
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import { sharedPg, type SharedPg } from "../../../../../support/pg-cluster";
import { kill, moveTo, startInstance, type Instance } from "../../../../../support/cluster-instances";
import { insertQuiz } from "../../../../../support/knowledge-fixture";
import { startTestApp, type TestApp } from "../../../../../support/test-app";

const MIN = 60_000;

describe("quiz timeouts, two instances", function () {
  this.timeout(60_000);
  let pg: SharedPg;
  let t: TestApp;
  const clock = new ManualClock(Date.parse("2026-11-22T10:00:00Z"));
  let a: Instance;
  let b: Instance;
  const stops = new Map<Instance, () => void>();
  const ended = new Map<Instance, Array<{ session_id: number; status: string }>>();
  let quizId: number;

  before(async function () {
    pg = await sharedPg(this);
    t = await startTestApp({ clock });
    a = await startInstance(pg, t.app.ctx, clock, "a");
    b = await startInstance(pg, t.app.ctx, clock, "b");
    for (const i of [a, b]) {
      ended.set(i, []);
      i.ctx.bus.subscribe("quiz.ended", (e) => ended.get(i)!.push(e));
      stops.set(i, startKnowledgeDelivery(i.ctx));
    }
    quizId = await insertQuiz(a.ctx, {
      questions: [
        {
          text: "Who comes on Sunday?",
          choices: [
            ["Anna", true],
            ["Nobody", false],
          ],
        },
      ],
    });
    await moveTo(clock, clock.now(), [a, b]);
  });
  after(async () => {
    for (const stop of stops.values()) stop();
    for (const i of [a, b]) await i?.leases.stop().catch(() => undefined);
    await t?.close();
    await pg?.drop();
  });

  const roles = (): [Instance, Instance] => (a.leases.holds("quiz-timeouts") ? [a, b] : [b, a]);
  const start = async (i: Instance): Promise<number> => {
    const started = await startQuiz(i.ctx, {
      quiz_id: quizId,
      senior_id: null,
      dedupe_minutes: 0,
      timeout_minutes: 2,
      voice_instruction: null,
      rule_id: null,
      execution_id: null,
      step_id: null,
    });
    assert.ok(started.started);
    return started.session_id;
  };
  const endings = (id: number) =>
    [a, b].flatMap((i) =>
      ended
        .get(i)!
        .filter((e) => e.session_id === id)
        .map((e) => `${i.id}:${e.status}`),
    );

  it("times a session out once, whichever instance started it", async () => {
    const [, other] = roles();
    const t0 = clock.now();
    const id = await start(other);
    await moveTo(clock, t0 + 2 * MIN - 1000, [a, b]);
    assert.deepEqual(endings(id), []);
    await moveTo(clock, t0 + 3 * MIN, [a, b]);
    assert.equal(endings(id).length, 1, `ended ${endings(id).join(", ")}`);
    assert.match(endings(id)[0], /:timed_out$/);
  });

  it("times out, on the survivor, a session whose instance died", async () => {
    const [holder, other] = roles();
    const t0 = clock.now();
    const id = await start(holder);
    await moveTo(clock, t0 + MIN, [a, b]);
    stops.get(holder)!(); // its timers die with it
    await kill(holder);
    await moveTo(clock, t0 + 2 * MIN + 5000, [a, b]);
    assert.ok(other.leases.holds("quiz-timeouts"));
    assert.deepEqual(endings(id), [`${other.id}:timed_out`]);
  });
});

/** A fake RuleFirer that records what it was asked, and an app with a ManualClock and a home to fire in. */
import { ManualClock } from "../../../../../../runtime/platform/core/clock";
import type { Logger } from "../../../../../../runtime/platform/core/logger";
import type { FireRequest, FireResult, RuleFirer } from "../../../../../../runtime/care/core/pipeline/engine/types";
import { startTestApp, type TestApp } from "../../../../../support/test-app";

export class FakeFirer implements RuleFirer {
  readonly calls: Array<FireRequest & { at: number }> = [];
  /** What the next fires answer; a function may also throw. */
  answer: (req: FireRequest) => FireResult = () => ({ execution_id: this.calls.length });

  constructor(private readonly clock?: ManualClock) {}

  async fire(req: FireRequest): Promise<FireResult> {
    this.calls.push({ ...structuredClone(req), at: this.clock?.now() ?? 0 });
    return this.answer(req);
  }

  ruleIds(): number[] {
    return this.calls.map((c) => c.rule_id);
  }
}

export interface TriggerApp {
  t: TestApp;
  clock: ManualClock;
  firer: FakeFirer;
  /** POST a rule through REST; returns its id. */
  rule(body: Record<string, unknown>): Promise<number>;
}

/** The app with a room "Hall" holding sensors hall_pir and hall_cam, and "Bathroom" with bath_pir. */
export async function startTriggerApp(startIso: string, timezone = "UTC", log?: Logger): Promise<TriggerApp> {
  const clock = new ManualClock(Date.parse(startIso));
  const t = await startTestApp({ clock, log, settings: { app: { timezone } } });
  const hall = (await t.post("/api/v1/rooms", { name: "Hall" })).body.id;
  const bathroom = (await t.post("/api/v1/rooms", { name: "Bathroom" })).body.id;
  for (const [sensor_id, sensor_type, room_id] of [
    ["hall_pir", "presence", hall],
    ["hall_cam", "camera", hall],
    ["bath_pir", "presence", bathroom],
    ["porch_cam", "camera", null],
  ] as const) {
    const res = await t.post("/api/v1/sensors", { sensor_id, sensor_type, room_id });
    if (res.status !== 201) throw new Error(`sensor ${sensor_id}: ${res.text}`);
  }
  return {
    t,
    clock,
    firer: new FakeFirer(clock),
    async rule(body) {
      const res = await t.post("/api/v1/rules", body);
      if (res.status !== 201) throw new Error(`rule: ${res.text}`);
      return res.body.id as number;
    },
  };
}

export const at = (iso: string): number => Date.parse(iso);
export const iso = (ms: number): string => new Date(ms).toISOString();

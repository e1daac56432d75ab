/**
 * sensor_event rules: on every `sensor.event` on the bus, fire each enabled sensor_event
 * rule whose primary sensor is the event's sensor. A rule without a primary sensor fires
 * for every sensor event and lets its context filters (a room filter, typically) decide.
 * The rules are kept between events and dropped the moment a rule can have changed
 * (TriggerRules), so a rule change is seen at once and a tracking service's thousands of
 * events a second do not each read them.
 *
 * A camera batch brings its frames (`media_paths`); a terminal's press or command and a
 * presence change or a person's move to another room bring what happened as `trigger_input`
 * (`trigger_input.kind`, `.button`,
 * `.command`, `.occupied`), the place a webhook's or chat command's payload goes too.
 */
import type { CareContext } from "../../context";
import type { BusTopics, SensorEvent } from "../../../../platform/core/event-bus";
import { triggerContext, type RuleFirer } from "../engine/types";
import { fireLogged, Inflight, type Trigger } from "./trigger-kit";
import { TriggerRules } from "./trigger-rules";

export class SensorEventTrigger implements Trigger {
  private unsubscribe: (() => void) | null = null;
  private readonly inflight: Inflight;
  private readonly rules: TriggerRules;

  constructor(
    private readonly ctx: CareContext,
    private readonly firer: RuleFirer,
  ) {
    this.inflight = new Inflight((err) => ctx.log.error({ err }, "sensor_event trigger failed"));
    this.rules = new TriggerRules(ctx, "sensor_event");
  }

  start(): void {
    if (this.unsubscribe) return;
    this.rules.start();
    this.unsubscribe = this.ctx.bus.subscribe("sensor.event", (e) => this.inflight.track(this.onEvent(e)));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.rules.stop();
  }

  idle(): Promise<void> {
    return this.inflight.idle();
  }

  private async onEvent(e: BusTopics["sensor.event"]): Promise<void> {
    if (e.kind === "presence" && e.initial) return;
    const rules = (await this.rules.get()).filter((r) => r.primary_sensor_id === null || r.primary_sensor_id === e.sensor_id);
    // Most events (a tracking service's thousands a second) fire nothing: build nothing for them.
    if (rules.length === 0) return;
    const trigger = triggerContext({
      trigger_type: "sensor_event",
      sensor_id: e.sensor_id,
      room_name: e.room_name,
      ...(e.kind === "camera_batch" ? { media_paths: e.media_paths, media_type: e.media_type } : {}),
    });
    const input = triggerInputOf(e);
    await Promise.all(
      rules.map((r) =>
        fireLogged(this.ctx, this.firer, {
          rule_id: r.id,
          trigger: { ...trigger, media_paths: [...trigger.media_paths] },
          trigger_input: input === null ? null : structuredClone(input),
        }),
      ),
    );
  }
}

/** What the event says beyond the trigger context, for `trigger_input` (null for a camera batch: its frames are the input). */
function triggerInputOf(e: SensorEvent): Record<string, unknown> | null {
  if (e.kind === "camera_batch") return null;
  if (e.kind === "presence") return { kind: "presence", occupied: e.occupied };
  return { ...e.input, kind: e.kind };
}

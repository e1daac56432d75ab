/**
 * Which displays a render or reset is for. Named ones must be registered e-ink sensors
 * (422 otherwise, naming them); none named means `notifications.eink.default_targets`
 * when that is set, else every enabled e-ink sensor.
 */
import type { CareContext } from "../../core/context";
import { ValidationError } from "../../../platform/core/errors";
import { existingSensorIds, listSensors } from "../../../household/sensors/sensors.service";

export interface TargetOptions {
  /** Reset clears every display when none is named, whatever the configured targets. */
  ignoreConfiguredTargets?: boolean;
  /** When none is named and no display exists: an empty list instead of a 422. */
  allowNone?: boolean;
}

export async function resolveTargets(ctx: CareContext, named: readonly string[] | undefined, opts: TargetOptions = {}): Promise<string[]> {
  const displays = await listSensors(ctx, { sensor_type: "eink" });
  const configured = opts.ignoreConfiguredTargets ? [] : ctx.settings.notifications.eink.default_targets;
  const wanted = named && named.length > 0 ? [...new Set(named)] : configured.length > 0 ? [...new Set(configured)] : null;
  const field = named && named.length > 0 ? "sensor_ids" : "notifications.eink.default_targets";
  if (wanted === null) {
    const all = displays.filter((d) => d.enabled).map((d) => d.sensor_id);
    if (all.length === 0 && !opts.allowNone) throw new ValidationError("sensor_ids: no e-ink displays are registered");
    return all;
  }
  const known = new Set(displays.map((d) => d.sensor_id));
  const unknown = wanted.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    const notDisplays = new Set(await existingSensorIds(ctx, unknown));
    const missing = unknown.filter((id) => !notDisplays.has(id));
    const parts = [
      missing.length ? `unknown sensor(s): ${missing.join(", ")}` : "",
      notDisplays.size ? `not e-ink displays: ${[...notDisplays].join(", ")}` : "",
    ].filter(Boolean);
    throw new ValidationError(`${field}: ${parts.join("; ")}`);
  }
  return wanted;
}

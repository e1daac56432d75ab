import type { z } from "zod";
import type { CameraOptions, DeviceStageHandler } from "../../_kit/device-types";
import type { spec } from "./label_filter.node";

type Config = z.output<typeof spec.config>;

const norm = (label: string): string => label.trim().toLocaleLowerCase("en-US");

/** Whether the detected labels satisfy the filter; no filter (or no labels in it) lets every frame through. */
export function passesLabelFilter(detected: readonly string[], filter: CameraOptions["label_filter"]): boolean {
  const required = (filter?.labels ?? []).map(norm).filter((l) => l !== "");
  if (required.length === 0) return true;
  const seen = new Set(detected.map(norm));
  return filter?.mode === "all" ? required.every((l) => seen.has(l)) : required.some((l) => seen.has(l));
}

export const handler: DeviceStageHandler<Config> = (ctx, message) => {
  if (message.payload.kind !== "camera") return { next: message };
  const filter = ctx.services.cameraOptions(message.device.sensor_id).label_filter;
  if (passesLabelFilter(message.payload.frame.labels, filter)) return { next: message };
  ctx.services.log.debug({ sensor_id: message.device.sensor_id, labels: message.payload.frame.labels }, "camera frame filtered by its labels");
  return { reply: { status: 200, body: { status: "filtered", reason: "label_filter" } } };
};

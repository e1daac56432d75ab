import type { z } from "zod";
import type { DeviceEntryHandler, DeviceReply, DeviceResult } from "../../_kit/device-types";
import { describeIssue } from "../../_kit/issues";
import { cameraPayloadSchema, decodeImage } from "./camera-payload";
import type { spec } from "./in.node";
import { terminalPayloadSchema } from "./terminal-payload";

type Config = z.output<typeof spec.config>;

const refuse = (status: number, detail: string): DeviceResult => ({ reply: { status, body: { detail } } satisfies DeviceReply });

function parse<S extends z.ZodType>(schema: S, body: unknown): { ok: true; value: z.output<S> } | { ok: false; result: DeviceResult } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, result: refuse(422, "body: a JSON object is required") };
  const parsed = schema.safeParse(body);
  if (!parsed.success) return { ok: false, result: refuse(422, describeIssue(parsed.error.issues[0])) };
  return { ok: true, value: parsed.data };
}

/** Checks the device's payload against the spec's schema and turns it into the message the Devices tab passes on. */
export const handler: DeviceEntryHandler<Config> = (ctx, request) => {
  const received_at = ctx.services.now();
  if (ctx.config.device === "terminal") {
    const p = parse(terminalPayloadSchema, request.body ?? {});
    if (!p.ok) return p.result;
    const v = p.value;
    const event = v.event ?? (v.command !== undefined ? "command" : "button");
    if (event === "command" && v.command === undefined) return refuse(422, "body.command: required when event is 'command'");
    return {
      next: {
        device: request.device,
        payload: {
          kind: "terminal",
          input: {
            event,
            button: event === "button" ? (v.button ?? "single") : null,
            command: event === "command" ? (v.command ?? null) : null,
            args: v.args ?? [],
            action: v.action ?? null,
            alert_id: v.alert_id ?? null,
            received_at,
          },
        },
      },
    };
  }
  const p = parse(cameraPayloadSchema, request.body);
  if (!p.ok) return p.result;
  const image = decodeImage(p.value.data.image);
  if (!("bytes" in image)) return refuse(image.status, image.detail);
  const d = p.value.data;
  return {
    next: {
      device: request.device,
      payload: {
        kind: "camera",
        frame: {
          bytes: image.bytes,
          labels: d.labels.map((l) => l.trim()).filter((l) => l !== ""),
          boxes: d.boxes,
          camera: {
            code: p.value.code ?? null,
            name: p.value.name ?? null,
            type: p.value.type ?? null,
            count: d.count ?? null,
            resolution: d.resolution ?? null,
          },
          received_at,
        },
      },
    },
  };
};

/**
 * The Devices tab's node types in Node-RED. A `care-device-in` node registers the endpoint it
 * serves with the app (which has already checked the device's key, read the body within its
 * limit and throttled wrong keys: one gate for every route); each request becomes a message
 * that carries a reply handle in `msg.res` (Node-RED keeps `res` by reference when it clones
 * a message for a second wire, so a debug node or an integrator's own branch wired beside the
 * stages sees the message without taking the answer away). The stage that decides answers;
 * a message that reaches the end of the tab unanswered, or a stage that fails, is answered
 * with an error rather than left hanging.
 */
import { registry } from "../../registry.generated";
import { deviceNodeRedType, type DeviceEntryHandler, type DeviceMessage, type DeviceReply, type DeviceSpec, type DeviceStageHandler } from "../device-types";
import type { RedMessage, RedNodeApi, RedNodeConfig, RedNodeInstance } from "./red-api";

/** A device is answered within this long even when its message went nowhere that answers. */
export const DEVICE_REPLY_TIMEOUT_MS = 10_000;

const REPLY = Symbol.for("careflow.device-reply");

/** The one answer a device request gets: the first `answer` wins, later ones are ignored. */
export class DeviceReplyHandle {
  readonly [REPLY] = true;
  private settle!: (reply: DeviceReply) => void;
  readonly answered: Promise<DeviceReply>;
  done = false;

  constructor(timeoutMs: number, onTimeout: () => DeviceReply) {
    this.answered = new Promise<DeviceReply>((resolve) => (this.settle = resolve));
    const timer = setTimeout(() => this.answer(onTimeout()), timeoutMs);
    timer.unref?.();
    void this.answered.then(() => clearTimeout(timer));
  }

  answer(reply: DeviceReply): void {
    if (this.done) return;
    this.done = true;
    this.settle(reply);
  }
}

const isReplyHandle = (v: unknown): v is DeviceReplyHandle => typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[REPLY] === true;

const failure = (status: number, detail: string): DeviceReply => ({ status, body: { detail } });

const nodeName = (node: RedNodeInstance, spec: DeviceSpec): string => node.name || spec.displayName;

/** Whether any of a node's outputs is wired (Node-RED's config keeps `wires` per output). */
const hasWires = (config: RedNodeConfig): boolean => Array.isArray(config.wires) && (config.wires as unknown[][]).some((w) => Array.isArray(w) && w.length > 0);

function parsedConfig(node: RedNodeInstance, spec: DeviceSpec, config: RedNodeConfig): Record<string, unknown> | null {
  const parsed = spec.config.safeParse(config.config ?? {});
  if (parsed.success) return parsed.data as Record<string, unknown>;
  node.status({ fill: "red", shape: "ring", text: parsed.error.issues[0]?.message ?? "invalid config" });
  return null;
}

function entryNode(RED: RedNodeApi, spec: DeviceSpec, handler: DeviceEntryHandler<Record<string, unknown>>) {
  return function (this: RedNodeInstance, config: RedNodeConfig) {
    RED.nodes.createNode(this, config);
    const cfg = parsedConfig(this, spec, config);
    const devices = RED.settings.careflow?.devices;
    if (!cfg) return;
    if (!devices) {
      this.status({ fill: "grey", shape: "ring", text: "the app's device services are not attached" });
      return;
    }
    const kind = cfg.device as "camera" | "terminal";
    const unregister = devices.endpoints.register(kind, this.id, async (request) => {
      const result = await handler({ config: cfg, services: devices.services }, request);
      if (!result.next) return result.reply ?? failure(500, `the Devices tab's '${nodeName(this, spec)}' node neither answered nor passed the request on`);
      const reply = new DeviceReplyHandle(DEVICE_REPLY_TIMEOUT_MS, () => {
        devices.services.log.warn({ device: kind, node: this.id }, "a device request reached no node that answers it");
        return failure(
          504,
          `the Devices tab did not answer this request within ${DEVICE_REPLY_TIMEOUT_MS / 1000} s (a busy store, or no aggregate or terminal node wired after it)`,
        );
      });
      if (result.reply) reply.answer(result.reply);
      if (!hasWires(config)) reply.answer(failure(500, `the Devices tab's '${nodeName(this, spec)}' node is wired to nothing`));
      this.send({ payload: result.next, res: reply } as RedMessage);
      return reply.answered;
    });
    this.status({ fill: "green", shape: "dot", text: `POST /api/v1/device/${kind}` });
    this.on("close", (_removed, done) => {
      unregister();
      done();
    });
  };
}

function stageNode(RED: RedNodeApi, spec: DeviceSpec, handler: DeviceStageHandler<Record<string, unknown>>) {
  return function (this: RedNodeInstance, config: RedNodeConfig) {
    RED.nodes.createNode(this, config);
    const cfg = parsedConfig(this, spec, config);
    const wired = hasWires(config);
    this.on("input", (msg, send, done) => {
      const reply = isReplyHandle(msg.res) ? msg.res : null;
      const devices = RED.settings.careflow?.devices;
      const message = msg.payload as DeviceMessage | undefined;
      if (!reply || !message?.payload || !devices) {
        // Not a device message (an integrator's inject, say): passed on untouched.
        send(msg);
        return done();
      }
      if (!cfg) {
        reply.answer(failure(500, `the Devices tab's '${nodeName(this, spec)}' node has an invalid config`));
        return done(new Error("invalid config"));
      }
      Promise.resolve(handler({ config: cfg, services: devices.services }, message))
        .then((result) => {
          if (result.reply) reply.answer(result.reply);
          if (result.next && wired) send({ ...msg, payload: result.next });
          else if (!reply.done) reply.answer(failure(500, `the Devices tab's '${nodeName(this, spec)}' node ended the request without answering it`));
          done();
        })
        .catch((err: unknown) => {
          devices.services.log.warn({ node: this.id, type: spec.type, err: String(err) }, "a Devices tab node failed");
          // A backing service that does not answer (the media store) stays a 503: the camera may send again later.
          const status = (err as { status?: unknown } | null)?.status === 503 ? 503 : 500;
          reply.answer(failure(status, `the Devices tab's '${nodeName(this, spec)}' node failed: ${err instanceof Error ? err.message : String(err)}`));
          done(err instanceof Error ? err : new Error(String(err)));
        });
    });
  };
}

export function registerDeviceNodes(RED: RedNodeApi): void {
  for (const { spec, handler } of registry.devices) {
    if (!handler) continue;
    const type = deviceNodeRedType(spec);
    if (spec.role === "entry") RED.nodes.registerType(type, entryNode(RED, spec, handler as DeviceEntryHandler<Record<string, unknown>>));
    else RED.nodes.registerType(type, stageNode(RED, spec, handler as DeviceStageHandler<Record<string, unknown>>));
  }
}

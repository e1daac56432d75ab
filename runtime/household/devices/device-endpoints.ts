/**
 * The device endpoints the Devices tab serves: each `care-device-in` node registers the
 * kind of device it serves when its flow starts and unregisters when it stops. The app's
 * `/api/v1/device/*` routes (which check the key, read the body and throttle first) hand each
 * request to the node registered for its kind. A deploy restarts the tab's nodes: a request
 * that comes in between waits (up to `REDEPLOY_WAIT_MS`) for the new node rather than failing.
 * With no node at all (Node-RED not running, the tab never started) the device is told so at
 * once with a 503 it can retry on.
 */
import type { DeviceEndpointRegistry } from "../../../nodes/_kit/node-red/red-api";
import type { DeviceKind, DeviceReply, DeviceRequest } from "../../../nodes/_kit/device-types";
import type { Logger } from "../../platform/core/logger";

type Serve = (request: DeviceRequest) => Promise<DeviceReply>;

/** How long a request waits for the Devices tab to start again after a deploy. */
export const REDEPLOY_WAIT_MS = 5_000;

export class DeviceEndpoints implements DeviceEndpointRegistry {
  private readonly served = new Map<DeviceKind, Array<{ nodeId: string; serve: Serve }>>();
  private readonly waiting = new Set<() => void>();
  /** Kinds that were served at some point: only then is a gap a deploy in progress. */
  private readonly everServed = new Set<DeviceKind>();

  constructor(private readonly log: Logger) {}

  register(kind: DeviceKind, nodeId: string, serve: Serve): () => void {
    const list = this.served.get(kind) ?? [];
    const entry = { nodeId, serve };
    list.push(entry);
    this.served.set(kind, list);
    this.everServed.add(kind);
    for (const wake of [...this.waiting]) wake();
    if (list.length > 1)
      this.log.warn({ device: kind, nodes: list.map((e) => e.nodeId) }, "more than one device-in node serves this endpoint: the first one answers");
    return () => {
      const now = this.served.get(kind) ?? [];
      this.served.set(
        kind,
        now.filter((e) => e !== entry),
      );
    };
  }

  /** The node ids serving each kind; for diagnostics and tests. */
  servedBy(kind: DeviceKind): string[] {
    return (this.served.get(kind) ?? []).map((e) => e.nodeId);
  }

  /** The first node serving `kind`, waiting for one while a deploy restarts the tab. */
  private async server(kind: DeviceKind): Promise<Serve | undefined> {
    const deadline = Date.now() + REDEPLOY_WAIT_MS;
    for (;;) {
      const first = this.served.get(kind)?.[0];
      if (first || !this.everServed.has(kind) || Date.now() >= deadline) return first?.serve;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.waiting.add(wake);
      });
    }
  }

  async dispatch(kind: DeviceKind, request: DeviceRequest): Promise<DeviceReply> {
    const serve = await this.server(kind);
    if (!serve) {
      return {
        status: 503,
        body: { detail: `no Devices tab node serves ${kind} input right now (is the Devices flow deployed and enabled?); try again shortly` },
      };
    }
    return serve(request);
  }
}

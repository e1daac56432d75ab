/**
 * A migrated store and an AppContext for the notification tests, without the HTTP app: a
 * manual clock, a real event bus, settings of the test's choosing and a web-app hub whose
 * broadcasts are recorded (with a chosen number of connected clients).
 */
import type { SettingsInput } from "../../../../../settings";
import type { HandlerContext, StepInput } from "../../../../../nodes/_kit/handler-types";
import { careServices } from "../../../../../runtime/care/services/care-services";
import type { AppContext } from "../../../../../runtime/app/context";
import { buildSettings } from "../../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../../runtime/platform/core/clock";
import { EventBus } from "../../../../../runtime/platform/core/event-bus";
import { createLogger } from "../../../../../runtime/platform/core/logger";
import { openStore } from "../../../../../runtime/platform/db/store";
import type { WebAppFrame, WebAppHub } from "../../../../../runtime/platform/ws/webapp-hub";
import { migratedDatabase } from "../../../../support/test-db";
import { trigger } from "../../../../nodes/handler-context";

export const T0 = Date.parse("2026-11-22T10:00:00Z");
export const MIN = 60_000;

export interface FakeHub {
  frames: WebAppFrame[];
  clients: number;
}

export interface NotifyEnv {
  ctx: AppContext;
  clock: ManualClock;
  hub: FakeHub;
  /** A handler context on the real care services of `ctx`. */
  hctx(signal?: AbortSignal): HandlerContext;
  close(): Promise<void>;
}

export async function notifyEnv(settings: SettingsInput = {}, clock = new ManualClock(T0)): Promise<NotifyEnv> {
  const fresh = await migratedDatabase();
  const store = await openStore(fresh.databaseUrl, fresh.dataDir);
  const hub: FakeHub = { frames: [], clients: 1 };
  const webapp = {
    broadcast: (frame: WebAppFrame) => {
      if (hub.clients > 0) hub.frames.push(frame);
      return hub.clients;
    },
  } as unknown as WebAppHub;
  const log = createLogger(process.env.CAREFLOW_TEST_LOG ? "debug" : "silent");
  const ctx = {
    db: store.db,
    dialect: store.dialect,
    clock,
    log,
    settings: buildSettings(settings),
    bus: new EventBus(),
    dataDir: fresh.dataDir,
    webapp,
  } as unknown as AppContext;
  return {
    ctx,
    clock,
    hub,
    hctx: (signal = new AbortController().signal) => ({ clock, log, services: careServices(ctx), signal }),
    close: async () => {
      await store.close();
      await fresh.drop();
    },
  };
}

export const notificationInput = (pipeline_data: Record<string, unknown>, over: Partial<StepInput> = {}): StepInput => ({
  pipeline_data,
  trigger: trigger({ trigger_type: "sensor_event", room_name: "Bathroom", sensor_id: "bath_pir" }),
  step: { id: 5, label: "Bathroom too long", step_type: "notification" },
  execution_id: 42,
  rule_id: 7,
  idempotency_key: "42:5:0",
  ...over,
});

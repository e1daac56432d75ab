/**
 * Feeds the parts board (platform/health/parts-board.ts) from what the app has: the devices of
 * the device keys (and their calls, recorded as `/api/v1` authenticates them), the hub link,
 * the tracking link, the senior's tablet on `/ws`, the chat bot, the webhook, the model servers and the speech service (service-parts.ts), and
 * the process's gauges, and with several instances each of the others.
 * Graces and cadences are in docs/decisions.md ("Parts and their states"). Each change of a
 * part's state is published as `part.changed` (parts-watch.ts).
 */
import type { RequestHandler } from "express";
import type { AppContext } from "../context";
import type { DeviceKeyEntry } from "../../../settings";
import { leasesOf } from "../../platform/cluster/cluster";
import { addProcessGauges, type FreeSpaceReader } from "../../platform/health/gauges";
import { PartsBoard, type PartKind } from "../../platform/health/parts-board";
import { devicePartId, watchPartChanges } from "../../platform/health/parts-watch";
import { watchInstances } from "../../platform/health/instance-parts";
import { addServiceParts } from "./service-parts";
import { activeManagedKeyOfSensor, listManagedKeys, managedKeyById } from "../../platform/auth/managed-keys.store";
import type { HubLink } from "../../household/hub/hub";
import type { CtsHealth } from "../../household/cts/cts-status";
import type { ChatLink } from "../../care/services/chat/chat.service";
import type { BotClient } from "../../care/services/chat/bot-client";
import { CHECK_EVERY_MS } from "../../platform/health/endpoint-part";

/** A link down this long is `down` (before: `late`). */
export const HUB_GRACE_MS = 2 * 60_000;
export const TRACKING_GRACE_MS = 2 * 60_000;
/** A tablet reloads, sleeps its screen, changes Wi-Fi: ten minutes away is not yet a fault. */
export const TABLET_GRACE_MS = 10 * 60_000;
export const CHAT_GRACE_MS = 5 * 60_000;
export const WEBHOOK_GRACE_MS = 5 * 60_000;

/** A display polls every minute: late after ten. A motion camera posts only on motion: no cadence unless set. */
export const DEFAULT_EXPECT_EVERY_MINUTES: Record<DeviceKeyEntry["device_type"], number | null> = {
  camera_device: null,
  display: 10,
  terminal: 10,
};

const DEVICE_KIND: Record<string, PartKind> = { camera_device: "camera", display: "display", terminal: "terminal" };

export { devicePartId };

export interface PartSources {
  hub: HubLink;
  chat: ChatLink;
  cts: () => CtsHealth;
  /** Tests: a fake free-space reader (a full disk without filling one). */
  freeSpace?: FreeSpaceReader;
}

/** Builds the board, registers every part, starts sampling; returns the board and its stop. */
export function startParts(ctx: AppContext, src: PartSources): { board: PartsBoard; stop: () => Promise<void> } {
  const board = new PartsBoard(ctx.clock);
  for (const d of ctx.settings.auth.device_keys) {
    const cadence = d.expect_every_minutes === undefined ? DEFAULT_EXPECT_EVERY_MINUTES[d.device_type] : d.expect_every_minutes;
    board.contact(devicePartId(d.sensor_id), DEVICE_KIND[d.device_type] ?? "camera", d.name ?? d.sensor_id, cadence);
  }
  const stopManaged = watchManagedDevices(ctx, board);
  // With several instances: the devices that call the others (this instance's own calls come back
  // here too, a second sign of life at the same instant, which changes nothing).
  const stopRelayed = ctx.bus.subscribe("device.contact", (d) => deviceSeen(board, d), { otherInstances: true });
  // Now, or when the family first sets the hub up on the Household page.
  src.hub.whenClient((hubClient) => {
    // With several instances one holds the hub connection; the others have nothing to say.
    board.link("hub", "hub", "Home hub", HUB_GRACE_MS, () =>
      leasesOf(ctx).holds("hub") ? { up: hubClient.connected, detail: "the hub's WebSocket is disconnected" } : null,
    );
  });
  if (ctx.settings.cts.enabled) {
    board.link("tracking", "tracking", "Continuous tracking (NATS)", TRACKING_GRACE_MS, () => {
      const h = src.cts();
      if (h.state === "standby") return null;
      return { up: h.state === "connected", detail: h.last_error ?? `tracking is ${h.state}` };
    });
  }
  if (ctx.settings.auth.api_keys.some((k) => k.permissions.includes("webapp"))) {
    board.link("tablet", "tablet", "The senior's tablet", TABLET_GRACE_MS, () => ({ up: ctx.webapp.size > 0, detail: "no web app connected to /ws" }));
  }
  if (src.chat.client) board.link("chat", "chat", "Chat bot", CHAT_GRACE_MS);
  const stopChatCheck = src.chat.client && ctx.settings.notifications.chat_app.mode === "webhook" ? checkWebhookChat(ctx, src.chat.client) : null;
  // The webhook has no connection to watch: its sends say how it is (runtime/care/services/notify/route-parts.ts).
  if (ctx.settings.notifications.webhook.url) board.link("webhook", "webhook", "Outbound webhook", WEBHOOK_GRACE_MS);
  const stopServices = addServiceParts(ctx, board);
  const stopGauges = addProcessGauges(board, { db: ctx.db, clock: ctx.clock, dataDir: ctx.dataDir, freeSpace: src.freeSpace });
  const cluster = ctx.cluster?.enabled ? ctx.cluster : null;
  const instances = cluster
    ? watchInstances(board, ctx.clock, {
        instances: async () => (await cluster.status()).instances,
        failed: (err) => ctx.log.warn({ err }, "parts: the cluster's instances could not be read"),
      })
    : null;
  const stopTick = board.start();
  // Each change of state once, on the bus, for the system_health rules (care/core/pipeline/triggers).
  const stopWatch = watchPartChanges(board, (change) => ctx.bus.publish("part.changed", change));
  return {
    board,
    stop: async () => {
      stopWatch();
      instances?.stop();
      stopManaged();
      stopRelayed();
      stopChatCheck?.();
      stopServices();
      await stopTick();
      stopGauges();
    },
  };
}

/**
 * How often a device's calls are told to the other instances: often enough that the shortest
 * cadence (a display's 10 minutes) never lapses on another board, rarely enough that a camera
 * posting frames every second is not a message a second.
 */
export const DEVICE_CONTACT_SHARE_MS = 30_000;

type DeviceOnBoard = { sensor_id: string; device_type: string; name: string };

/** A device not on the board yet (its key made while the service runs) joins with its type's cadence. */
function deviceKnown(board: PartsBoard, d: DeviceOnBoard): void {
  const id = devicePartId(d.sensor_id);
  if (!board.has(id))
    board.contact(id, DEVICE_KIND[d.device_type] ?? "camera", d.name, DEFAULT_EXPECT_EVERY_MINUTES[d.device_type as DeviceKeyEntry["device_type"]] ?? null);
}

/** A device's sign of life on this board. */
function deviceSeen(board: PartsBoard, d: DeviceOnBoard): void {
  deviceKnown(board, d);
  board.seen(devicePartId(d.sensor_id), DEVICE_KIND[d.device_type] ?? "camera", d.name);
}

/** After the key check: a device's every call is its sign of life, here and (now and then) on the other instances. */
export const recordDeviceContact = (ctx: AppContext): RequestHandler => {
  const shared = new Map<string, number>();
  return (req, _res, next) => {
    const p = req.principal;
    if (p?.kind === "device" && ctx.parts) {
      const d = { sensor_id: p.sensor_id, device_type: p.device_type, name: p.name };
      deviceSeen(ctx.parts, d);
      const now = ctx.clock.now();
      if (ctx.cluster?.enabled && now - (shared.get(d.sensor_id) ?? -Infinity) >= DEVICE_CONTACT_SHARE_MS) {
        shared.set(d.sensor_id, now);
        ctx.bus.publish("device.contact", d);
      }
    }
    next();
  };
};

/**
 * Device keys made while the service runs (issue 43 §2) are parts like the settings' ones: the
 * active ones from the store at start (a display that never calls again after a restart still
 * goes late), a new one from its first call, and off the board once revoked (a device the family
 * removed is no silent part). Returns the stop.
 */
function watchManagedDevices(ctx: AppContext, board: PartsBoard): () => void {
  listManagedKeys(ctx.db)
    .then((rows) => {
      for (const r of rows) {
        if (r.kind === "device" && !r.revoked_at && r.sensor_id && r.device_type)
          deviceKnown(board, { sensor_id: r.sensor_id, device_type: r.device_type, name: r.name });
      }
    })
    .catch((err: unknown) => ctx.log.warn({ err }, "parts: the device keys made in careflow could not be read"));
  const forgetRevoked = async (keyId: number): Promise<void> => {
    const row = await managedKeyById(ctx.db, keyId);
    // A rotation publishes the same event: the key's row is not revoked then, and the device stays.
    if (!row?.revoked_at || row.kind !== "device" || !row.sensor_id) return;
    if (ctx.settings.auth.device_keys.some((k) => k.sensor_id === row.sensor_id)) return;
    if (await activeManagedKeyOfSensor(ctx.db, row.sensor_id)) return;
    board.forget(devicePartId(row.sensor_id));
  };
  return ctx.bus.subscribe(
    "key.revoked",
    ({ key_id }) => void forgetRevoked(key_id).catch((err: unknown) => ctx.log.warn({ err, key_id }, "parts: a revoked device's part was not removed")),
    { otherInstances: true },
  );
}

/**
 * In webhook mode nothing calls the Bot API between sends (polling's long polls are its sign of
 * life): a `getMe` on a model server's check beat, so a revoked token is found before a message
 * needs it and a fixed one is seen within minutes, not at the next alert. The client reports
 * each call's outcome to the chat part itself.
 */
function checkWebhookChat(ctx: AppContext, client: BotClient): () => void {
  let cancel: () => void = () => undefined;
  const tick = () => {
    cancel = ctx.clock.at(ctx.clock.now() + CHECK_EVERY_MS, tick, { background: true });
    void client.call((api, signal) => api.getMe(signal));
  };
  cancel = ctx.clock.at(ctx.clock.now() + CHECK_EVERY_MS, tick, { background: true });
  return () => cancel();
}

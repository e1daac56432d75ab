/**
 * The one implementation of the care services handlers use (`nodes/_kit/care-services.ts`):
 * each method delegates to the runtime service that owns the capability, so a handler and
 * the REST API reach the same code. Built once per app by createApp and given to handlers by
 * the engine, the filter gate and the channel layer; it holds no state of its own (settings are
 * read at each call), so a second one for the same context (a test's) behaves the same.
 */
import type { CareServices } from "../../../nodes/_kit/care-services";
import { hubServices } from "../../household/hub/hub-services";
import type { CareContext } from "../core/context";
import { sameName } from "../../platform/core/name-key";
import { renderToDevices } from "./eink/render.service";
import { withCardChrome } from "./eink/card-chrome";
import { recordPrompt } from "./interactive/interactive.service";
import { runLlmStep } from "./llm/step/run-llm-step";
import { registeredChannels } from "./notify/channels";
import { channelNames } from "../core/language/channel-names";
import { sendNotification } from "./notify/notify.service";
import { recentCameraFrames } from "./perception/camera-frames";
import { readMediaFile } from "./perception/media-files";
import { analyzeScene } from "./perception/scene-analysis.client";
import { recentObjects, roomTrend, searchObservations, trendSnapshots } from "./perception/semantic-memory.client";
import { compileCondition, resolvePath } from "../core/language/conditions";
import { renderTemplate } from "../core/language/templates";
import { listActivitiesBetween, recordActivity } from "../../household/activities/activities.store";
import { anchorDailyWindow, timeOfDay } from "../../household/tracking/daily-window";
import { localParts, startOfLocalDay } from "../../household/tracking/local-time";
import { getPersonLocation, plainLocation } from "../../household/tracking/locations.store";
import { homeStates, resolvePersonId, resolvePresence, unknownPresence, type PresenceDeps } from "../../household/tracking/presence";
import { hubState } from "../../household/hub/hub-state";
import { findRoomByName } from "../../household/rooms/rooms.service";
import { loadAlertProfiles, profileAllows } from "../../household/tracking/signal-profiles";
import { findSignals } from "../../household/tracking/signals.store";
import { trackingWindow } from "../../household/cts/tracking-window";
import { listTransitions } from "../../household/tracking/transitions.store";
import { listRoomTrends } from "../../household/tracking/trends.store";
import { identifyFrames } from "../../household/identity/identify.service";
import { announce } from "../../household/speech/announce";
import { realtimeConfigured } from "./llm/realtime-client";
import { deliverCard, startQuiz } from "./knowledge/delivery";

/** The care services of a context; settings are read at each call, so a changed setting applies at once. */
export function careServices(ctx: CareContext): CareServices {
  const zone = (): string => ctx.settings.app.timezone;
  const services: CareServices = {
    names: { same: sameName },
    time: {
      zone,
      localParts: (epochMs) => localParts(epochMs, zone()),
      startOfLocalDay: (epochMs) => startOfLocalDay(epochMs, zone()),
      timeOfDay,
      dailyWindow: (start, end, nowMs) => anchorDailyWindow(start, end, nowMs, zone()),
    },
    templates: { render: renderTemplate },
    conditions: { compile: compileCondition, resolvePath },
    presence: {
      resolve: (personId, nowMs) => resolvePresence(presenceDeps(ctx), personId, nowMs),
      unknown: unknownPresence,
      personIdFrom: resolvePersonId,
      homeStates,
      location: async (personId) => {
        const l = await getPersonLocation(ctx.db, personId);
        return l ? plainLocation(l) : null;
      },
    },
    activities: {
      record: (activity) => recordActivity(ctx.db, activity),
      between: (q) => listActivitiesBetween(ctx.db, q),
    },
    signals: {
      find: (q) => findSignals(ctx.db, q),
      allowedByProfile: async (signals) => {
        const profiles = await loadAlertProfiles(
          ctx.db,
          signals.map((s) => s.person_id),
        );
        return signals.filter((s) => profileAllows(profiles.get(s.person_id), s.kind, s.severity));
      },
    },
    tracking: {
      transitions: (q) => listTransitions(ctx.db, q),
      roomTrends: () => listRoomTrends(ctx.db),
      window: async (q) => (ctx.settings.cts.enabled ? trackingWindow(ctx.db, q) : null),
    },
    notify: {
      send: async (input, config, signal) => {
        const { plan, receipts } = await sendNotification(ctx, { clock: ctx.clock, log: ctx.log, services, signal }, input, config, registeredChannels);
        return { receipts, messages: plan.messages, names: channelNames([...plan.channels, ...receipts.map((r) => r.channel)]) };
      },
    },
    prompts: { record: (prompt) => recordPrompt(ctx, prompt) },
    webapp: {
      broadcast: (frame) => ctx.webapp.broadcast(frame),
      announce: (request, signal) => announce(ctx, request, signal),
      realtimeConfigured: () => realtimeConfigured(ctx.settings),
      converse: (request, signal) =>
        ctx.voice ? ctx.voice.start(request, signal) : Promise.resolve({ ok: false as const, reason: "the voice companion is not started" }),
    },
    models: { runStep: (input, config, signal) => runLlmStep(ctx, input, config, signal) },
    eink: {
      render: async ({ alert_level, ...request }) => renderToDevices(ctx, alert_level ? await withCardChrome(ctx, request, alert_level) : request),
    },
    media: { read: (p) => readMediaFile(ctx, p), recentFrames: (q) => recentCameraFrames(ctx, q) },
    scene: { analyze: (image, request, signal) => analyzeScene(ctx.settings.scene_analysis, image, request, signal) },
    memory: {
      roomTrend: (roomId, signal) => roomTrend(ctx.settings.semantic_memory, roomId, signal),
      snapshots: (roomId, hours, signal) => trendSnapshots(ctx.settings.semantic_memory, roomId, hours, signal),
      recentObjects: (roomId, minutes, signal) => recentObjects(ctx.settings.semantic_memory, roomId, minutes, signal),
      searchObservations: (q, signal) => searchObservations(ctx.settings.semantic_memory, q, signal),
    },
    hub: hubServices(ctx, () => ctx.hub),
    identity: { identify: (request, signal) => identifyFrames(ctx, request, signal) },
    chat: {
      send: (request, signal) =>
        ctx.chat ? ctx.chat.send(request, signal) : Promise.resolve({ ok: false as const, reason: "the chat service is not started" }),
    },
    knowledge: { deliverCard: (request, signal) => deliverCard(ctx, request, signal), startQuiz: (request, signal) => startQuiz(ctx, request, signal) },
  };
  return services;
}

/** What the presence chain reads, as the settings say now (a reload swaps `presence`). */
export function presenceDeps(ctx: CareContext): PresenceDeps {
  return {
    db: ctx.db,
    hub: hubState(ctx),
    presence: ctx.settings.presence,
    staleAfterMinutes: ctx.settings.person_tracking.stale_timeout_minutes,
    roomId: async (name) => {
      const room = await findRoomByName(ctx, name);
      return room ? String(room.id) : null;
    },
  };
}

/**
 * The hub as care steps and channels use it (`HubServices` of nodes/_kit/care-services.ts):
 * service calls within `hub.allowed_services`, speech played on the hub's speakers, and the
 * weather entity. Every "cannot" is an answer with its reason, never a throw, so a step or a
 * channel records why and the run goes on.
 */
import type { HubServices } from "../../../nodes/_kit/care-services";
import type { ServiceAnswer } from "../../../vocabulary/answers";
import type { HubWeather } from "../../../vocabulary/hub";
import type { PlatformContext } from "../../platform/context";
import { fnmatch } from "../../platform/auth/fnmatch";
import { storeSpeechClip } from "../media/speech-clips";
import { synthesize } from "../speech/tts-client";
import { usableHub, type HubLink } from "./hub";

const fail = <T>(reason: string): ServiceAnswer<T> => ({ ok: false, reason });
const num = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)) ? Number(v) : null;
const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Whether `domain.service` is allowed by the settings' patterns (`light.*`, `lock.unlock`). */
export const serviceAllowed = (patterns: readonly string[], domain: string, service: string): boolean =>
  patterns.some((p) => fnmatch(`${domain}.${service}`, p));

/** `link` is read at each call: the hub may be started (or replaced from the Household page) after the services are made. */
export function hubServices(ctx: PlatformContext, link: () => HubLink | undefined): HubServices {
  return {
    call: async (request) => {
      const hub = usableHub(link());
      if (!hub.ok) return fail(hub.reason);
      if (!serviceAllowed(ctx.settings.hub.allowed_services, request.domain, request.service)) {
        return fail(`'${request.domain}.${request.service}' is not in hub.allowed_services; add it there to let rules call it`);
      }
      try {
        const response = await hub.client.callService(request.domain, request.service, request.data, request.entity_id ?? undefined);
        return { ok: true, value: { response } };
      } catch (err) {
        return fail(`the hub refused ${request.domain}.${request.service}: ${err instanceof Error ? err.message : String(err)}`);
      }
    },
    speak: async (request, signal) => {
      const hub = usableHub(link());
      if (!hub.ok) return fail(hub.reason);
      const player = request.media_player ?? (request.room_name ? speakerOfRoom(ctx, request.room_name) : null) ?? ctx.settings.hub.media_player;
      if (!player) return fail("no speaker: set hub.media_player, a room's speaker in hub.speakers, or the step's hub_media_player");
      // The speaker fetches the audio itself: from app.public_url, else this host's network address.
      const base = ctx.settings.app.public_url ?? ctx.address?.current()?.base;
      if (!base) return fail("no address the speaker could fetch the audio from: set app.public_url to the address the hub reaches careflow at");
      const audio = await synthesize(ctx, request, signal);
      if (!audio.ok) return audio;
      const clip = await storeSpeechClip(ctx, audio.value, "mp3", base);
      try {
        await hub.client.callService("media_player", "play_media", { media_content_id: clip.url, media_content_type: "music", announce: true }, player);
      } catch (err) {
        return fail(`the hub did not play the audio on ${player}: ${err instanceof Error ? err.message : String(err)}`);
      }
      return { ok: true, value: { media_player: player, url: clip.url } };
    },
    weather: () => {
      const entity = ctx.settings.hub.weather_entity;
      if (!entity) return fail("no weather entity: set hub.weather_entity (e.g. weather.home)");
      const hub = link();
      const state = hub?.state(entity);
      if (!state) return fail(hub?.client ? `the hub has not reported ${entity}` : (hub?.reason ?? "no hub"));
      const a = state.attributes;
      const weather: HubWeather = {
        state: state.state,
        temperature: num(a.temperature),
        temperature_unit: text(a.temperature_unit),
        humidity: num(a.humidity),
        wind_speed: num(a.wind_speed),
        wind_speed_unit: text(a.wind_speed_unit),
        forecast: (Array.isArray(a.forecast) ? (a.forecast as Array<Record<string, unknown>>) : []).slice(0, 3),
      };
      return { ok: true, value: weather };
    },
  };
}

/** The weather as templates see it (`system.weather`): null without a hub or a weather entity. */
export function currentWeather(ctx: PlatformContext & { hub?: HubLink }): HubWeather | null {
  if (!ctx.hub?.client || !ctx.settings.hub.weather_entity) return null;
  const answer = hubServices(ctx, () => ctx.hub).weather();
  return answer.ok ? answer.value : null;
}

/** The speaker mapped to a room in `hub.speakers` (room names compared in any case). */
function speakerOfRoom(ctx: PlatformContext, roomName: string): string | null {
  const key = Object.keys(ctx.settings.hub.speakers).find((r) => r.toLocaleLowerCase() === roomName.toLocaleLowerCase());
  return key ? ctx.settings.hub.speakers[key] : null;
}

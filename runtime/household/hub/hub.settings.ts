/** The `hub` settings section: the home hub (Home Assistant) and what careflow may ask of it. */
import { z } from "zod";

// The hub's presence polling and the bathroom limit of the spec's Limits.
// The home hub (Home Assistant): without `url` and a token nothing talks to it and hub
// steps answer success=false saying so. The token may come from CAREFLOW_HUB_TOKEN instead.
export const hubSettings = z
  .object({
    url: z.string().url().nullable().default(null),
    token: z.string().min(1).nullable().default(null),
    poll_seconds: z.number().positive().default(30),
    bathroom_time_limit_minutes: z.number().positive().default(20),
    // The spec's name for the same limit; when given, it wins.
    bathroom_time_limit: z.number().positive().optional(),
    // `domain.service` patterns hub_action may call; locks and alarm panels only when listed.
    allowed_services: z
      .array(z.string().regex(/^[a-z0-9_]+\.([a-z0-9_]+|\*)$/, "a 'domain.service' or 'domain.*'"))
      .default(["light.*", "switch.*", "media_player.*", "input_text.*", "input_boolean.*", "input_number.*", "input_select.*", "input_button.*", "notify.*"]),
    // The speaker used when no room's speaker is known, and each room's speaker.
    media_player: z
      .string()
      .regex(/^media_player\.[a-z0-9_]+$/, "a media_player entity")
      .nullable()
      .default(null),
    speakers: z.record(z.string(), z.string().regex(/^media_player\.[a-z0-9_]+$/, "a media_player entity")).default({}),
    weather_entity: z
      .string()
      .regex(/^weather\.[a-z0-9_]+$/, "a weather entity")
      .nullable()
      .default(null),
  })
  .strict()
  .prefault({});

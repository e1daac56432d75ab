/**
 * Location pushed to the hub (spec): after each change of a person's location, the text helper
 * `input_text.cc_{person_id}_location` holds the room's name (empty when the person left the
 * home), so the hub's own automations and dashboards can use it. The helper is created when the
 * hub does not have it. Only while `person_tracking.enabled`; a hub that is down is skipped
 * (the next change sets the helper again), logged at warn.
 */
import type { PlatformContext } from "../../platform/context";
import type { HubClient } from "./hub-client";

/** The helper's entity id for a person (`cc_` and the person id, lowercase, `_` for anything else). */
export const locationHelperOf = (personId: string): string => `input_text.cc_${personId.toLowerCase().replace(/[^a-z0-9_]+/g, "_")}_location`;

export function pushLocationsToHub(ctx: Pick<PlatformContext, "bus" | "log" | "settings">, client: HubClient): () => void {
  const push = async (personId: string, room: string): Promise<void> => {
    const entity = locationHelperOf(personId);
    if (!client.state(entity)) {
      // The helper's name gives its entity id: `cc_rose_location` → input_text.cc_rose_location.
      await client.createInputText(entity.slice("input_text.".length), { max: 255 });
    }
    await client.callService("input_text", "set_value", { value: room.slice(0, 255) }, entity);
  };
  return ctx.bus.subscribe("sensor.event", (e) => {
    if (e.kind !== "location" || !ctx.settings.person_tracking.enabled) return;
    const personId = typeof e.input.person_id === "string" ? e.input.person_id : null;
    if (!personId || e.input.visitor === true) return;
    const room = typeof e.input.to_room === "string" ? e.input.to_room : "";
    push(personId, room).catch((err: unknown) =>
      ctx.log.warn({ err: String(err), person_id: personId }, "the person's location could not be pushed to the hub"),
    );
  });
}

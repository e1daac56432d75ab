/**
 * What the presence providers read from the home automation hub: an entity's current state
 * (`binary_sensor.rose_bed_occupancy` → `on`, `device_tracker.rose_phone` → `home`). The hub
 * capability implements it with its client and installs it with `useHubState`; until then
 * every app reads through `noHubState`, which knows no entity, so the hub-backed providers
 * offer no candidate.
 */
export interface HubEntityState {
  state: string;
  /** ISO-8601 UTC: when the entity took this state. */
  last_changed: string;
}

export interface HubStateReader {
  /** The entity's current state; null when the hub does not know it or cannot be reached. */
  state(entityId: string): Promise<HubEntityState | null>;
}

export const noHubState: HubStateReader = { state: async () => null };

const readers = new WeakMap<object, HubStateReader>();

/** Installs the hub reader of an app (its context); tests install stubs. */
export function useHubState(ctx: object, reader: HubStateReader): void {
  readers.set(ctx, reader);
}

/** The app's hub reader, or one that knows nothing. */
export function hubState(ctx: object): HubStateReader {
  return readers.get(ctx) ?? noHubState;
}

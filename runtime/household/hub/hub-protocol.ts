/**
 * The home hub's wire shapes (Home Assistant's WebSocket and REST APIs): what careflow reads
 * and sends. Only the fields careflow uses are typed; the rest pass through untouched.
 */

export interface HubState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: string;
  last_updated: string;
}

export interface HubStateChange {
  entity_id: string;
  old_state: HubState | null;
  new_state: HubState | null;
}

export interface HubArea {
  area_id: string;
  name: string;
  floor_id?: string | null;
}

export interface HubEntityEntry {
  entity_id: string;
  area_id: string | null;
  device_id: string | null;
  name?: string | null;
  original_name?: string | null;
  disabled_by?: string | null;
}

export interface HubDevice {
  id: string;
  area_id: string | null;
  name?: string | null;
}

/** A message the hub sends on its WebSocket. */
export type HubMessage =
  | { type: "auth_required" | "auth_ok"; ha_version?: string }
  | { type: "auth_invalid"; message?: string }
  | { type: "result"; id: number; success: boolean; result?: unknown; error?: { code: string; message: string } }
  | { type: "event"; id: number; event: { event_type: string; data: unknown; time_fired?: string } }
  | { type: "pong"; id: number };

/** A failure the hub answered (`not_found`, `unauthorized`, ...), or a transport failure. */
export class HubError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const isHubState = (v: unknown): v is HubState =>
  typeof v === "object" && v !== null && typeof (v as HubState).entity_id === "string" && typeof (v as HubState).state === "string";

/**
 * `GET /api/v1/admin/webapp/tablets`: the senior's tablets connected to `/ws` now (the web app
 * hub's clients whose key has the `webapp` role), each with its key's name, its screen's own id,
 * since when it is connected and when it was last heard from (a frame, or the pong to the hub's
 * ping every 30 s). No key material: caregivers read it as they read every GET. With several
 * instances it lists the tablets of the instance that answers (the others' are not known here).
 */
import type { AppContext } from "../context";
import { isoAt } from "../../platform/core/clock";
import type { WebAppScreen } from "../../platform/ws/webapp-hub";

export interface ConnectedTablet {
  key_name: string;
  /** The managed key's id (Household page, `POST /api/v1/admin/keys`); null for a settings-file key. */
  key_id: number | null;
  /** The screen's own id (`?tablet=`), null when the web app sent none. */
  tablet_id: string | null;
  connected_at: string;
  last_seen_at: string;
}

const isTablet = (s: WebAppScreen): boolean => s.principal.kind === "api" && s.principal.roles.includes("webapp");

export function connectedTablets(ctx: AppContext): { tablets: ConnectedTablet[] } {
  return {
    tablets: ctx.webapp
      .screens()
      .filter(isTablet)
      .map((s) => ({
        key_name: s.principal.name,
        key_id: s.principal.key_id ?? null,
        tablet_id: s.tablet,
        connected_at: isoAt(s.connected_at),
        last_seen_at: isoAt(s.last_seen_at),
      })),
  };
}

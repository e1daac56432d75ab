/** Who is calling: resolved from a key, attached to the request, read by handlers. */
import type { RoleName } from "../../../settings";

interface PrincipalBase {
  name: string;
  /** fnmatch patterns over `METHOD /path` this caller may use. */
  patterns: readonly string[];
  /** A key made while the service runs (`managed_keys`): its id, so its sockets close when it is revoked or rotated. */
  key_id?: number;
}

export interface ApiPrincipal extends PrincipalBase {
  kind: "api";
  roles: readonly RoleName[];
  isAdmin: boolean;
}

export interface DevicePrincipal extends PrincipalBase {
  kind: "device";
  sensor_id: string;
  device_type: string;
}

export type Principal = ApiPrincipal | DevicePrincipal;

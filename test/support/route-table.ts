/**
 * The app's own route table, read from its Express routers, so a route added later joins
 * the security tests without anyone listing it. Node-RED's editor (its own login) and the
 * HTTP-in nodes of flows are not part of it.
 */
import type http from "node:http";

export interface RouteEntry {
  method: string;
  /** Express path with `:params`, e.g. `/api/v1/rules/:id/steps`. */
  path: string;
}

interface Layer {
  route?: { path: string | RegExp; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  regexp: RegExp & { fast_slash?: boolean };
}

/** The static mount path of a `use()` layer, from Express 4's path regexp. */
function mountPath(layer: Layer): string | null {
  if (layer.regexp.fast_slash) return "";
  const m = /^\^((?:\\\/[\w-]+)+)\\\/\?\(\?=\\\/\|\$\)$/.exec(layer.regexp.source);
  return m ? m[1].replace(/\\\//g, "/") : null;
}

function collect(stack: readonly Layer[], prefix: string, out: RouteEntry[]): void {
  for (const layer of stack) {
    if (layer.route) {
      if (typeof layer.route.path !== "string") throw new Error(`route table: a RegExp route under ${prefix}`);
      if ((prefix + layer.route.path).startsWith("/editor/")) continue; // the login gate in front of Node-RED's admin app
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (on && method !== "_all") out.push({ method: method.toUpperCase(), path: prefix + layer.route.path });
      }
    } else if (layer.handle.stack) {
      const mount = mountPath(layer);
      if (mount === null) throw new Error(`route table: a router under ${prefix} with a mount path it cannot read (${layer.regexp.source})`);
      if (prefix + mount === "/editor") continue; // Node-RED's admin app
      collect(layer.handle.stack, prefix + mount, out);
    }
  }
}

/** Every route the app serves, once each, in registration order. */
export function appRoutes(server: http.Server): RouteEntry[] {
  // The app among the request listeners (the first rewrites an absolute-form target).
  const app = server.listeners("request").find((l) => "_router" in l) as unknown as { _router?: { stack: Layer[] } } | undefined;
  if (!app?._router) throw new Error("route table: the server's request listener is not an Express app");
  const out: RouteEntry[] = [];
  collect(app._router.stack, "", out);
  const seen = new Set<string>();
  return out.filter((r) => {
    const k = `${r.method} ${r.path}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** A concrete path for a route: every `:param` filled with `value` (ids that name nothing). */
export const concretePath = (path: string, value = "1"): string => path.replace(/:(\w+)(\([^)]*\))?\??/g, value);

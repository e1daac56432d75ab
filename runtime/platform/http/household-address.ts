/**
 * The address the household's devices reach careflow at (issue 42): the tablet's set-up link
 * and its QR code, and the audio URLs the hub's speakers fetch. `app.public_url` when it is
 * set; else the host's first network (non-loopback) IPv4 address with the port careflow
 * listens on, since `localhost` on a tablet or a speaker is the tablet or the speaker itself;
 * else, on a machine with no network address, `localhost`, said as such.
 */
import os from "node:os";

/** As `os.networkInterfaces()` answers (tests hand in their own). */
export type NetworkInterfaces = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

export interface ReachableAddress {
  /** `http://host:port`, no trailing slash. */
  base: string;
  /** Where it came from: the setting, the host's network address, or nothing better than localhost. */
  source: "public_url" | "network" | "loopback";
}

const isIPv4 = (family: string | number): boolean => family === "IPv4" || family === 4;

/** The host's first non-loopback IPv4 address, in the order the system lists its interfaces; null when it has none. */
export function firstNetworkAddress(interfaces: NetworkInterfaces): string | null {
  for (const list of Object.values(interfaces)) {
    const found = (list ?? []).find((i) => isIPv4(i.family) && !i.internal && !i.address.startsWith("127.") && !i.address.startsWith("169.254."));
    if (found) return found.address;
  }
  return null;
}

/** `localhost`, `127.x.x.x`, `::1` (with or without brackets and a port): an address only this machine reaches. */
export function isLoopbackHost(hostWithPort: string): boolean {
  const host = hostWithPort.startsWith("[") ? hostWithPort.slice(1, hostWithPort.indexOf("]")) : hostWithPort.replace(/:\d+$/, "");
  const h = host.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(h) || h === "::1" || h === "0:0:0:0:0:0:0:1";
}

export function reachableAddress(publicUrl: string | undefined, port: number, interfaces: NetworkInterfaces): ReachableAddress {
  if (publicUrl) return { base: publicUrl.replace(/\/+$/, ""), source: "public_url" };
  const ip = firstNetworkAddress(interfaces);
  return ip ? { base: `http://${ip}:${port}`, source: "network" } : { base: `http://localhost:${port}`, source: "loopback" };
}

/** What the start log says about it. */
export function describeAddress(a: ReachableAddress): string {
  if (a.source === "public_url") return `the household reaches careflow at ${a.base} (app.public_url)`;
  if (a.source === "network")
    return `app.public_url is not set: the tablet's set-up link and the speakers' audio use ${a.base}, this host's first network address (set app.public_url to choose another)`;
  return `app.public_url is not set and this host has no network address: the tablet's set-up link and the speakers' audio use ${a.base}, which only this machine opens; set app.public_url to the address the household's devices reach`;
}

/** The app's address once it listens: the port is known only then (port 0 in tests). */
export class HouseholdAddress {
  private port: number | null = null;

  constructor(
    private readonly publicUrl: () => string | undefined,
    private readonly interfaces: () => NetworkInterfaces = os.networkInterfaces,
  ) {}

  listening(port: number): void {
    this.port = port;
  }

  /** The address now (interfaces are read again: a lease may have changed); null before listening without `app.public_url`. */
  current(): ReachableAddress | null {
    const url = this.publicUrl();
    if (url) return reachableAddress(url, 0, {});
    return this.port === null ? null : reachableAddress(undefined, this.port, this.interfaces());
  }
}

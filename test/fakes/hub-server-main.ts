/**
 * `npm run fake-hub`: the fake home hub (hub-server.ts) serving the demo house on a fixed
 * port, for trying careflow's hub rules without a hub. FAKE_HUB_PORT (default 8123) and
 * FAKE_HUB_TOKEN (default printed) set the port and access token. Every connection, action
 * call and state change is printed; lines on stdin change the house by hand (`help` lists
 * them), e.g. `set binary_sensor.bathroom_presence on`.
 */
import { runConsole } from "./console-commands";
import { demoHouse, startFakeHub, type FakeHub } from "./hub-server";

const DEFAULT_TOKEN = "careflow-fake-hub-token";

const HELP = `commands:
  set <entity_id> <state> [attr=value ...]   set a state (attributes merge; values are JSON or text)
  attr <entity_id> attr=value ...            change attributes only
  remove <entity_id>                         remove an entity's state
  get <entity_id>                            show one state
  states [text]                              list states (those whose id contains text)
  calls                                      list recorded action calls
  clear                                      forget recorded calls
  drop                                       drop every WebSocket connection
  stop | start                               stop listening (states are kept) | listen again
  help | quit`;

/** `key=value` pairs; a value is parsed as JSON when it is JSON (numbers, true, null, [..]). */
function parseAttributes(words: string[]): Record<string, unknown> | string {
  const out: Record<string, unknown> = {};
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq <= 0) return `not an attribute: ${w} (use name=value)`;
    const raw = w.slice(eq + 1);
    try {
      out[w.slice(0, eq)] = JSON.parse(raw);
    } catch {
      out[w.slice(0, eq)] = raw;
    }
  }
  return out;
}

async function run(hub: FakeHub, line: string): Promise<string | null> {
  const [cmd, ...args] = line.trim().split(/\s+/);
  switch (cmd) {
    case undefined:
    case "":
      return null;
    case "help":
      return HELP;
    case "set":
    case "attr": {
      const [entityId, ...rest] = args;
      if (!entityId || (cmd === "set" && !rest.length))
        return `usage: ${cmd === "set" ? "set <entity_id> <state> [attr=value ...]" : "attr <entity_id> attr=value ..."}`;
      const old = hub.state(entityId);
      if (cmd === "attr" && !old) return `no entity ${entityId}`;
      const state = cmd === "set" ? rest.shift()! : old!.state;
      const attributes = parseAttributes(rest);
      if (typeof attributes === "string") return attributes;
      hub.setState(entityId, state, { ...old?.attributes, ...attributes });
      return `${entityId} = ${state}${Object.keys(attributes).length ? ` ${JSON.stringify(attributes)}` : ""}`;
    }
    case "remove":
      return args[0] && hub.removeState(args[0]) ? `removed ${args[0]}` : `no entity ${args[0] ?? ""}`;
    case "get": {
      const s = args[0] ? hub.state(args[0]) : undefined;
      return s ? JSON.stringify(s, null, 2) : `no entity ${args[0] ?? ""}`;
    }
    case "states":
      return hub
        .states()
        .filter((s) => !args[0] || s.entity_id.includes(args[0]))
        .map((s) => `${s.entity_id.padEnd(36)} ${s.state}`)
        .join("\n");
    case "calls":
      return hub.calls.map((c) => `${c.time} ${c.via} ${c.domain}.${c.service} ${JSON.stringify({ ...c.service_data, ...c.target })}`).join("\n") || "no calls";
    case "clear":
      hub.clearCalls();
      return "calls cleared";
    case "drop": {
      const n = hub.connections();
      hub.dropConnections();
      return `dropped ${n} connection(s)`;
    }
    case "stop":
      await hub.stop();
      return "stopped (states kept; `start` to listen again)";
    case "start":
      await hub.restart();
      return `listening on ${hub.url}`;
    default:
      return `unknown command ${cmd}; ${HELP}`;
  }
}

async function main(): Promise<void> {
  const port = Number(process.env.FAKE_HUB_PORT ?? 8123);
  const token = process.env.FAKE_HUB_TOKEN || DEFAULT_TOKEN;
  const hub = await startFakeHub({
    ...demoHouse(),
    port,
    token,
    config: { location_name: "Rose's home", time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone },
    log: (line) => console.log(`[hub] ${line}`),
  });
  console.log(`fake home hub (Home Assistant protocols)
  REST       ${hub.url}/api/
  WebSocket  ${hub.wsUrl}
  token      ${token}${process.env.FAKE_HUB_TOKEN ? "" : "   (set FAKE_HUB_TOKEN to choose another)"}
  areas      kitchen, bathroom, bedroom, living_room, hallway; ${hub.states().length} entities ("states" lists them)
${HELP}`);

  runConsole(
    (line) => run(hub, line),
    () => hub.close(),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * The soak's household: its settings (the fakes it talks to, the keys of its devices, tablets,
 * agent and scraper) and what an admin sets up once through REST (rooms, a sensor, the
 * members tracking places, the rules each part feeds). The rates are ten times a busy
 * household's (docs/decisions.md, "The soak bench: a household's rate").
 */

export const ADMIN_KEY = "soak-admin-key-0001";
export const METRICS_KEY = "soak-metrics-key-0001";
export const MCP_KEY = "soak-mcp-key-0001";
/** Two tablet keys: a key may hold 10 sockets (websocket.max_connections_per_key). */
export const WEBAPP_KEYS = ["soak-webapp-key-0001", "soak-webapp-key-0002"];
export const CAMERAS = [
  { key: "SOAKCAM1", sensor_id: "soak_cam_kitchen" },
  { key: "SOAKCAM2", sensor_id: "soak_cam_hall" },
];
export const CHAT_TOKEN = "55:soak-token";
export const CHAT_ID = 1001;
export const HUB_TOKEN = "soak-hub-token";
export const PRESENCE = "binary_sensor.soak_bathroom_presence";
export const PEOPLE = Array.from({ length: 10 }, (_, i) => `soak_p${i}`);
export const TRACKING_ROOMS = ["Kitchen", "Hallway"];

/** One busy household, per minute; the soak feeds ten times this (SOAK_FACTOR). */
export const HOUSEHOLD_PER_MINUTE = {
  /** Two cameras, a frame every 4 s each while someone moves. */
  frames: 30,
  /** Presence, doors, lights on the hub. */
  hub_changes: 6,
  /** The tracking service's location events for two people. */
  tracking_events: 60,
  /** A voice assistant in conversation. */
  mcp_calls: 6,
  /** Cron rules firing (reminders, rounds). */
  cron_runs: 1,
  /** A question on the tablet every 10 minutes. */
  prompts: 0.1,
  /** A family member's /status in the chat every 5 minutes. */
  chat_commands: 0.2,
};
/** Tablets on /ws in a household. */
export const HOUSEHOLD_TABLETS = 2;

export function soakSettings(o: { chatUrl: string; hubUrl: string; natsUrl: string | null; streamPrefix: string }): Record<string, unknown> {
  return {
    app: { timezone: "Europe/Berlin" },
    auth: {
      api_keys: [
        { key: METRICS_KEY, name: "soak scraper", permissions: ["metrics"] },
        { key: MCP_KEY, name: "soak agent", permissions: ["mcp_readonly"] },
        ...WEBAPP_KEYS.map((key, i) => ({ key, name: `soak tablets ${i + 1}`, permissions: ["webapp"] })),
      ],
      device_keys: CAMERAS.map((c) => ({ key: c.key, sensor_id: c.sensor_id, device_type: "camera_device", permissions: ["device:camera"] })),
    },
    hub: { url: o.hubUrl, token: HUB_TOKEN },
    notifications: {
      chat_app: {
        api_base_url: o.chatUrl,
        token: CHAT_TOKEN,
        poll_timeout_seconds: 10,
        targets: [{ name: "Anna", chat_id: CHAT_ID, alert_levels: ["warning", "emergency"] }],
      },
    },
    ...(o.natsUrl ? { cts: { enabled: true, nats_url: o.natsUrl, stream_prefix: o.streamPrefix, lock_seconds: 0 } } : {}),
  };
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: any }>;

export interface Rules {
  /** Webhook rule raising a warning on the chat: the alert loop's probe. */
  alert: { id: number; secret: string };
  /** Webhook rule asking the senior on the tablets. */
  prompt: { id: number; secret: string };
}

const ok = (what: string, res: { status: number; body: any }, want = [200, 201]) => {
  if (!want.includes(res.status)) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

const condition = (expression: string) => [{ label: "check", step_type: "condition", config: { expression } }];

/** Everything an admin sets up once; the store keeps it across the kills. */
export async function setUpHousehold(api: Api, cronEverySeconds: number): Promise<Rules> {
  const rooms = new Map<string, number>();
  for (const name of TRACKING_ROOMS) rooms.set(name, ok(`room ${name}`, await api("POST", "/api/v1/rooms", { name })).id);
  ok("sensor", await api("POST", "/api/v1/sensors", { sensor_id: "soak_pir", sensor_type: "presence", room_id: rooms.get("Hallway") }));
  for (const id of PEOPLE) ok(`person ${id}`, await api("POST", "/api/v1/persons", { person_id: id, display_name: id.replace("soak_", "Person ") }));
  // The hub's bathroom and its presence sensor; the service connects to the hub on its own after the start.
  for (const path of ["/api/v1/ha/sync/rooms", "/api/v1/ha/sync/sensors"])
    for (let tries = 1; ; tries++) {
      const res = await api("POST", path);
      if (res.status === 200 || tries === 5) {
        ok(path, res, [200]);
        break;
      }
    }
  const importRule = async (bundle: Record<string, unknown>): Promise<number> =>
    ok("rule import", await api("POST", "/api/v1/rules/import", { schema_version: 1, ...bundle })).rule_id as number;
  const secretOf = async (id: number): Promise<string> => ok("webhook secret", await api("POST", `/api/v1/webhooks/${id}/generate-secret`)).secret as string;

  await importRule({
    rule: {
      name: "Soak round",
      trigger_type: "cron",
      schedule_cron: `*/${cronEverySeconds} * * * * *`,
      primary_sensor_ref: { kind: "sensor", label: "soak_pir" },
    },
    steps: condition("trigger_type == 'cron'"),
  });
  await importRule({
    rule: { name: "Soak bathroom", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: PRESENCE }, max_concurrent_executions: 5 },
    steps: condition("true"),
  });
  for (const c of CAMERAS)
    await importRule({
      rule: {
        name: `Soak camera ${c.sensor_id}`,
        trigger_type: "sensor_event",
        primary_sensor_ref: { kind: "sensor", label: c.sensor_id },
        max_concurrent_executions: 5,
      },
      steps: condition("true"),
    });
  await importRule({
    rule: { name: "Soak status", trigger_type: "chat_app", chat_command: "status", max_concurrent_executions: 5 },
    steps: [
      {
        label: "Answer",
        step_type: "notification",
        config: { alert_level: "info", channels: ["chat_app"], chat_app_template: "Answer to {{trigger_input.text}}" },
      },
    ],
  });
  const alertId = await importRule({
    rule: { name: "Soak warning", trigger_type: "webhook", max_concurrent_executions: 20 },
    steps: [
      {
        label: "Warn",
        step_type: "notification",
        config: {
          alert_level: "warning",
          channels: ["chat_app", "pwa_popup_text"],
          message_template: "Soak alert #{{trigger_input.n}}",
          chat_app_template: "Soak alert #{{trigger_input.n}}",
        },
      },
    ],
  });
  const promptId = await importRule({
    rule: { name: "Soak question", trigger_type: "webhook", max_concurrent_executions: 20 },
    steps: [
      {
        label: "ask",
        step_type: "interactive_prompt",
        config: { popup_message_template: "Soak question #{{trigger_input.n}}: are you alright?", countdown_seconds: 120 },
      },
      { label: "after", step_type: "condition", config: { expression: "interactive_response.action == 'dismiss'" } },
    ],
    edges: [{ source_label: "ask", source_port: "main", target_label: "after" }],
  });
  return { alert: { id: alertId, secret: await secretOf(alertId) }, prompt: { id: promptId, secret: await secretOf(promptId) } };
}

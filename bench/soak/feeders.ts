/**
 * The soak's feeders: each part of a household, at its rate, against whichever life of the
 * service is up (`Target.base()`, null while it is down after a kill -9). What the hub and the
 * tracking service send goes on while careflow is down, as in a house; devices, tablets, the
 * agent and webhooks find nobody there and try again, as real ones do.
 */
import crypto from "node:crypto";
import WebSocket from "ws";
import type { FakeChat } from "../../test/fakes/chat-server";
import type { FakeHub } from "../../test/fakes/hub-server";
import type { CtsPublisher } from "../../test/fakes/cts-publisher";
import { connectMcp, type Client } from "../../test/runtime/care/surfaces/mcp/mcp-client";
import { cameraPayload } from "../../test/support/jpeg";
import { CAMERAS, CHAT_ID, MCP_KEY, PEOPLE, PRESENCE, TRACKING_ROOMS } from "./household";
import { nowMs } from "../support";

export interface Target {
  /** The live service's base URL; null while it is down. */
  base(): string | null;
  stopped(): boolean;
}

export interface Tally {
  sent: number;
  errors: number;
  /** Attempts skipped while the service was down. */
  skipped: number;
  lastError?: string;
}

const tally = (): Tally => ({ sent: 0, errors: 0, skipped: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
const fail = (t: Tally, err: unknown) => {
  t.errors++;
  t.lastError = err instanceof Error ? err.message : String(err);
};

/** Calls `one` every `everyMs` on a fixed schedule (a slow call does not push the next ones back) until the soak stops. */
async function every(target: Target, everyMs: number, one: () => Promise<void>): Promise<void> {
  let next = nowMs();
  while (!target.stopped()) {
    await one();
    next += everyMs;
    await sleep(next - nowMs());
  }
}

/** Camera frames over POST /api/v1/device/camera, the cameras in turn; a few distinct frames (the store is content-addressed). */
export function feedFrames(target: Target, perMinute: number, frames: Buffer[]): { tally: Tally; done: Promise<void> } {
  const t = tally();
  let i = 0;
  const done = every(target, 60_000 / perMinute, async () => {
    const base = target.base();
    if (!base) return void t.skipped++;
    const cam = CAMERAS[i % CAMERAS.length];
    const frame = frames[i++ % frames.length];
    try {
      const res = await fetch(`${base}/api/v1/device/camera?api_key=${cam.key}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(cameraPayload(frame)),
      });
      await res.text();
      if (res.status !== 200) throw new Error(`camera ${res.status}`);
      t.sent++;
    } catch (err) {
      fail(t, err);
    }
  });
  return { tally: t, done };
}

/** The hub's bathroom presence toggling, whether careflow listens or not. */
export function feedHub(target: Target, perMinute: number, hub: FakeHub): { tally: Tally; done: Promise<void> } {
  const t = tally();
  let on = false;
  const done = every(target, 60_000 / perMinute, async () => {
    on = !on;
    hub.setState(PRESENCE, on ? "on" : "off");
    t.sent++;
  });
  return { tally: t, done };
}

/** Tracking events on the broker: person j % 10 moves to the other room. `lastRoom` is where each was last sent. */
export function feedTracking(target: Target, perMinute: number, pub: CtsPublisher): { tally: Tally; done: Promise<void>; lastRoom: Map<string, string> } {
  const t = tally();
  const lastRoom = new Map<string, string>();
  let j = 0;
  const done = every(target, 60_000 / perMinute, async () => {
    const person = PEOPLE[j % PEOPLE.length];
    const room = TRACKING_ROOMS[Math.floor(j / PEOPLE.length) % TRACKING_ROOMS.length];
    const id = `soak-${j++}`;
    try {
      await pub.event({ camera_id: `cam-${j % 2}`, room_name: room, people: [{ ph_id: `ph-${person}`, identity_id: person }], event_id: id });
      lastRoom.set(person, room);
      t.sent++;
    } catch (err) {
      fail(t, err);
    }
  });
  return { tally: t, done, lastRoom };
}

export interface TabletTally {
  connects: number;
  prompts: number;
  answered: number;
  /** The server took the answer (interactive_response_result success). */
  accepted: number;
  popups: number;
  dismissed: number;
  errors: number;
}

/**
 * `count` tablets on /ws (the keys in turn, each its own tablet id), reconnecting a second after
 * losing the server. Prompt n is answered "I'm okay" by tablet n % count after a second or two
 * (a person reading it); every alert popup is put away with OK.
 */
export function tablets(target: Target, count: number, keys: string[]): { tally: TabletTally; done: Promise<void>; close(): void } {
  const t: TabletTally = { connects: 0, prompts: 0, answered: 0, accepted: 0, popups: 0, dismissed: 0, errors: 0 };
  const sockets = new Set<WebSocket>();
  const one = async (index: number): Promise<void> => {
    const id = crypto.randomBytes(16).toString("hex");
    while (!target.stopped()) {
      const base = target.base();
      if (!base) {
        await sleep(500);
        continue;
      }
      const ws = new WebSocket(`${base.replace("http", "ws")}/ws?tablet=${id}`, [keys[index % keys.length]]);
      sockets.add(ws);
      const answeredHere = new Set<string>();
      ws.on("message", (data, binary) => {
        if (binary) return;
        const f = JSON.parse(String(data)) as Record<string, any>;
        if (f.type === "interactive_prompt") {
          const n = Number(/#(\d+)/.exec(String(f.message))?.[1]);
          const key = `${f.execution_id}:${f.step_id}`;
          if (n % count !== index || answeredHere.has(key)) return;
          answeredHere.add(key);
          t.prompts++;
          setTimeout(
            () => {
              if (ws.readyState !== WebSocket.OPEN) return;
              ws.send(
                JSON.stringify({
                  type: "interactive_response",
                  execution_id: f.execution_id,
                  step_id: f.step_id,
                  action: "dismiss",
                  channel: "pwa_popup_text",
                  raw_response: { button: "I'm okay" },
                }),
              );
              t.answered++;
            },
            1000 + Math.random() * 1000,
          );
        } else if (f.type === "interactive_response_result") {
          if (f.success) t.accepted++;
        } else if (typeof f.alert_id === "number" && ["warning", "emergency"].includes(f.type)) {
          t.popups++;
          ws.send(JSON.stringify({ type: "popup_dismiss", alert_id: f.alert_id }));
        } else if (f.type === "popup_dismissed") t.dismissed++;
      });
      await new Promise<void>((resolve) => {
        ws.once("open", () => t.connects++);
        ws.once("error", () => t.errors++);
        ws.once("close", () => resolve());
      });
      sockets.delete(ws);
      await sleep(1000);
    }
  };
  const done = Promise.all(Array.from({ length: count }, (_, i) => one(i))).then(() => undefined);
  return { tally: t, done, close: () => sockets.forEach((s) => s.close()) };
}

/** An agent's MCP conversations: a session of 10 tool calls, closed, then the next; a new session after any failure. */
export function feedMcp(target: Target, perMinute: number): { tally: Tally; done: Promise<void> } {
  const t = tally();
  const tools = ["get_rooms", "get_person_locations", "get_alerts", "get_local_datetime"];
  let client: Client | null = null;
  let inSession = 0;
  let i = 0;
  const drop = async () => {
    const c = client;
    client = null;
    inSession = 0;
    await c?.close().catch(() => undefined);
  };
  const done = every(target, 60_000 / perMinute, async () => {
    const base = target.base();
    if (!base) {
      t.skipped++;
      return drop();
    }
    try {
      client ??= await connectMcp(base, MCP_KEY);
      const res = await client.callTool({ name: tools[i++ % tools.length], arguments: {} });
      if (res.isError) throw new Error(JSON.stringify(res.content).slice(0, 200));
      t.sent++;
      if (++inSession >= 10) {
        const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
        await transport?.terminateSession?.().catch(() => undefined);
        await drop();
      }
    } catch (err) {
      fail(t, err);
      await drop();
    }
  }).then(drop);
  return { tally: t, done };
}

/** A family member's `/status s<k>` in the chat; `asked` holds k and when. Careflow's answer is read back at the end. */
export function feedChatCommands(
  target: Target,
  perMinute: number,
  chat: FakeChat,
): { tally: Tally; done: Promise<void>; asked: Array<{ k: number; at: number }> } {
  const t = tally();
  const asked: Array<{ k: number; at: number }> = [];
  let k = 0;
  const done = every(target, 60_000 / perMinute, async () => {
    k++;
    asked.push({ k, at: Date.now() });
    chat.sendText(CHAT_ID, `/status s${k}`, { id: 501, is_bot: false, first_name: "Anna" });
    t.sent++;
  });
  return { tally: t, done, asked };
}

/** Anna presses "I'm on it" on every alert's first message, half a second after it arrives. */
export function pressButtons(target: Target, chat: FakeChat): { tally: Tally; done: Promise<void> } {
  const t = tally();
  let seen = 0;
  const done = every(target, 500, async () => {
    const fresh = chat.messages.slice(seen);
    seen = chat.messages.length;
    for (const m of fresh) {
      const data = ((m.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | null)?.inline_keyboard ?? [])
        .flat()
        .map((b) => b.callback_data)
        .find((d) => d?.startsWith("ack:"));
      if (!data || !/^Soak alert #\d+/.test(m.text ?? "")) continue;
      chat.pressButton(m.chat_id, m.message_id, data, { id: 501, is_bot: false, first_name: "Anna" });
      t.sent++;
    }
  });
  return { tally: t, done };
}

export interface Fired {
  n: number;
  /** Date.now() when the accepted request was sent. */
  at: number;
  execution_id: number | null;
  /** Tries refused because the service was down. */
  retries: number;
}

/**
 * A webhook rule fired with `{n}` every `everyMs`; while the service is down the sender tries
 * again every 250 ms (a webhook sender retries), so every n is accepted once.
 */
export function fireWebhooks(target: Target, everyMs: number, rule: { id: number; secret: string }): { tally: Tally; done: Promise<void>; fired: Fired[] } {
  const t = tally();
  const fired: Fired[] = [];
  let n = 0;
  const done = every(target, everyMs, async () => {
    n++;
    let retries = 0;
    while (!target.stopped()) {
      const base = target.base();
      const at = Date.now();
      if (base) {
        try {
          const res = await fetch(`${base}/api/v1/webhooks/${rule.id}`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-webhook-secret": rule.secret },
            body: JSON.stringify({ n }),
          });
          const body = (await res.json()) as { execution_id?: number | null; reason?: string };
          if (res.status === 200) {
            fired.push({ n, at, execution_id: body.execution_id ?? null, retries });
            t.sent++;
            return;
          }
          fail(t, new Error(`webhook ${res.status} ${JSON.stringify(body)}`));
        } catch (err) {
          fail(t, err);
        }
      } else t.skipped++;
      retries++;
      await sleep(250);
    }
  });
  return { tally: t, done, fired };
}

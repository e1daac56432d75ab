/**
 * The care-safety loop, against the fake chat service (test/fakes/chat-server.ts, the Bot API)
 * and a fake vision model answering at once (test/fakes/openai-chat-server.ts), with the app
 * started as the tests start it (startTestApp, Node-RED on, system clock):
 *
 * a camera batch (a `sensor.event` with the frame, as the aggregator publishes it) → the
 * sensor_event rule → `llm_call` on the frame → condition → an emergency `notification` on
 * `chat_app` → the fake chat service receives the photo and the message with the buttons in
 * two chats; then "I'm on it" pressed in one chat → the alert acknowledged, escalation stopped
 * and the message edited in both chats.
 *
 * Measured over BENCH_ALERT_LOOPS (1,000) alerts, one after another: batch → first family
 * message with the buttons (target p99 ≤ 2 s); button pressed → all chats edited (target p99
 * ≤ 2 s); alerts lost (no message, a chat missing, not acknowledged, not edited, escalation
 * not stopped; target 0).
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { startFakeChat, type SentMessage } from "../test/fakes/chat-server";
import { startFakeOpenAiChatServer } from "../test/fakes/openai-chat-server";
import { startTestApp } from "../test/support/test-app";
import { getAlert } from "../runtime/household/alerts/alerts.service";
import { nowMs, percentile, report } from "./support";

const LOOPS = Number(process.env.BENCH_ALERT_LOOPS ?? 1000);
const TOKEN = "99:bench-token";
const CHATS = [1001, 1002];
const LIMIT_MS = 10_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(probe: () => T | undefined | false, ms = LIMIT_MS): Promise<T | undefined> {
  const end = nowMs() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (nowMs() > end) return undefined;
    await sleep(1);
  }
}

const callbackOf = (m: SentMessage, prefix: string): string | undefined =>
  ((m.reply_markup as { inline_keyboard?: Array<Array<{ callback_data?: string }>> } | null)?.inline_keyboard ?? [])
    .flat()
    .map((b) => b.callback_data)
    .find((d) => d?.startsWith(prefix));

async function main(): Promise<void> {
  const chat = await startFakeChat({ token: TOKEN, chats: CHATS.map((id) => ({ id, type: "private" as const })) });
  const model = await startFakeOpenAiChatServer();
  model.fallback = { content: JSON.stringify({ person_fell: true, description: "someone is lying on the hall floor" }) };
  const t = await startTestApp({
    nodeRed: true,
    settings: {
      llm: { models: [{ id: "vision", api_type: "openai", base_url: model.baseUrl, model: "llava", capabilities: ["text", "vision"] }] },
      notifications: {
        chat_app: {
          api_base_url: chat.url,
          token: TOKEN,
          poll_timeout_seconds: 10,
          targets: CHATS.map((id, i) => ({ name: i === 0 ? "Anna" : "Ben", chat_id: id, alert_levels: ["emergency", "warning"] })),
        },
      },
    },
  });
  const hall = (await t.post("/api/v1/rooms", { name: "hall" })).body.id;
  await t.post("/api/v1/sensors", { sensor_id: "hall_cam", sensor_type: "camera", room_id: hall });
  const dir = path.join(t.app.ctx.dataDir, "media", "hall_cam");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "frame1.jpg"),
    await sharp({ create: { width: 640, height: 480, channels: 3, background: "#777777" } })
      .jpeg()
      .toBuffer(),
  );
  const res = await t.post("/api/v1/rules/import", {
    schema_version: 1,
    rule: { name: "Fall watch", trigger_type: "sensor_event", primary_sensor_ref: { kind: "sensor", label: "hall_cam" }, max_concurrent_executions: 5 },
    steps: [
      {
        label: "look",
        step_type: "llm_call",
        config: {
          model_id: "vision",
          prompt: "Did someone fall? Answer as JSON.",
          image_source: "trigger",
          response_format: "json_free",
          output_key: "vision_response",
        },
      },
      { label: "fell?", step_type: "condition", config: { expression: "vision_response.person_fell == true" } },
      {
        label: "Fall",
        step_type: "notification",
        config: {
          alert_level: "emergency",
          channels: ["chat_app"],
          chat_app_template: "Rose may have fallen in the {{room_name}}: {{vision_response.description}}",
        },
      },
    ],
    edges: [
      { source_label: "look", source_port: "main", target_label: "fell?" },
      { source_label: "fell?", source_port: "true", target_label: "Fall" },
    ],
  });
  if (res.status !== 201) throw new Error(`rule import: ${res.status} ${res.text}`);

  const firstMessage: number[] = [];
  const edited: number[] = [];
  let lost = 0;
  const reasons = new Map<string, number>();
  const lose = (why: string) => {
    lost++;
    reasons.set(why, (reasons.get(why) ?? 0) + 1);
  };
  const started = nowMs();
  for (let i = 0; i < LOOPS; i++) {
    const seen = chat.messages.length;
    const wall0 = Date.now();
    t.app.ctx.bus.publish("sensor.event", {
      sensor_id: "hall_cam",
      room_name: "hall",
      media_paths: ["media/hall_cam/frame1.jpg"],
      media_type: "image/jpeg",
      kind: "camera_batch",
      batch_id: i + 1,
    });
    const first = await until(() => chat.messages.slice(seen).find((m) => callbackOf(m, "ack:")));
    if (!first) {
      lose("no message");
      continue;
    }
    firstMessage.push(first.received_at - wall0);
    const data = callbackOf(first, "ack:")!;
    const alertId = Number(data.slice(4));
    const mine = await until(() => {
      const ms = chat.messages.slice(seen).filter((m) => callbackOf(m, "ack:") === data);
      return ms.length === CHATS.length ? ms : undefined;
    });
    if (!mine) {
      lose("a chat missing");
      continue;
    }
    const t1 = nowMs();
    chat.pressButton(first.chat_id, first.message_id, data, { id: 1, is_bot: false, first_name: "Anna" });
    const all = await until(() => mine.every((m) => m.edited_at !== null && /Anna is on it/.test(m.text ?? "")));
    if (!all) {
      lose("not edited");
      continue;
    }
    edited.push(nowMs() - t1);
    const alert = await getAlert(t.app.ctx, alertId);
    if (!alert.assistance_needed || alert.next_escalation_at !== null) lose("escalation not stopped");
  }
  const seconds = (nowMs() - started) / 1000;
  const photos = chat.messages.filter((m) => m.photo).length;
  await t.close();
  await chat.close();
  await model.close();

  const p = (v: number[], q: number) => percentile(v, q);
  report(
    "alert-loop",
    [
      { measure: "batch → first family message p50", value: p(firstMessage, 50), unit: "ms" },
      { measure: "batch → first family message p99", value: p(firstMessage, 99), unit: "ms", target: "≤ 2000", ok: p(firstMessage, 99) <= 2000 },
      { measure: "button → all chats edited p50", value: p(edited, 50), unit: "ms" },
      { measure: "button → all chats edited p99", value: p(edited, 99), unit: "ms", target: "≤ 2000", ok: p(edited, 99) <= 2000 },
      { measure: `alerts lost of ${LOOPS}`, value: lost, unit: "", target: "0", ok: lost === 0 },
      { measure: "photos received", value: photos, unit: "", target: `${LOOPS * CHATS.length}`, ok: photos === LOOPS * CHATS.length },
      { measure: "wall time", value: seconds, unit: "s" },
    ],
    {
      loops: LOOPS,
      first_message_p50_ms: p(firstMessage, 50),
      first_message_p99_ms: p(firstMessage, 99),
      edited_p50_ms: p(edited, 50),
      edited_p99_ms: p(edited, 99),
      lost,
      lost_reasons: Object.fromEntries(reasons),
      photos,
    },
  );
  // A fake's long-poll timer may still be pending: the figures are out, so end here.
  process.exit(lost > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

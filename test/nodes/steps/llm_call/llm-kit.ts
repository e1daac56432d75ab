/**
 * What the llm_call handler tests share: a fresh store (for `camera_media`), a data directory
 * with images, both fake model servers, and a registry naming them.
 */
import fs from "node:fs";
import path from "node:path";
import type { Knex } from "knex";
import type { HandlerContext, StepInput } from "../../../../nodes/_kit/handler-types";
import { careServices } from "../../../../runtime/care/services/care-services";
import type { AppContext } from "../../../../runtime/app/context";
import { buildSettings } from "../../../../runtime/platform/config/load-settings";
import { ManualClock } from "../../../../runtime/platform/core/clock";
import { createLogger } from "../../../../runtime/platform/core/logger";
import { openStore } from "../../../../runtime/platform/db/store";
import type { SettingsInput } from "../../../../settings";
import { startFakeOllamaChatServer } from "../../../fakes/ollama-chat-server";
import { startFakeOpenAiChatServer, type ScriptedServer } from "../../../fakes/openai-chat-server";
import { migratedDatabase } from "../../../support/test-db";
import { stepInput, trigger } from "../../handler-context";

export const NOW = Date.parse("2026-11-22T10:00:00Z");
export const MIN = 60_000;
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0]);

type ModelInput = NonNullable<NonNullable<SettingsInput["llm"]>["models"]>[number];

export interface LlmKit {
  db: Knex;
  dataDir: string;
  openai: ScriptedServer;
  ollama: ScriptedServer;
  /** A handler context whose registry holds the kit's models (plus `extra`). */
  ctx(o?: { extra?: ModelInput[]; signal?: AbortSignal; timezone?: string }): HandlerContext;
  /** Writes a JPEG-looking file whose bytes end in `label`, at a path relative to dataDir. */
  image(rel: string, label?: string): string;
  /** A camera_media row (and its file) `minutesAgo` before NOW. */
  media(sensor_id: string, room_name: string | null, label: string, minutesAgo: number): Promise<string>;
  input(data?: Record<string, unknown>, media_paths?: string[], step_type?: string): StepInput;
}

/** The label of an image sent as a data URL (see `image`). */
export const labelOfDataUrl = (url: string): string => {
  const m = /^data:image\/jpeg;base64,(.*)$/.exec(url);
  if (!m) throw new Error(`not a JPEG data URL: ${url.slice(0, 40)}`);
  return Buffer.from(m[1], "base64").subarray(JPEG.length).toString();
};
export const labelOfBase64 = (b64: string): string => Buffer.from(b64, "base64").subarray(JPEG.length).toString();

export function useLlmKit(): LlmKit {
  const kit = {} as LlmKit;
  let close: () => Promise<void> = async () => undefined;
  before(async function () {
    this.timeout(30_000);
    const fresh = await migratedDatabase();
    const store = await openStore(fresh.databaseUrl, fresh.dataDir);
    const openai = await startFakeOpenAiChatServer({ models: ["qwen2-vl", "qwen2.5"] });
    const ollama = await startFakeOllamaChatServer({ models: ["llava:13b"] });
    const log = createLogger("silent");
    const models = (): ModelInput[] => [
      {
        id: "vision-vllm",
        name: "Qwen VL",
        api_type: "openai",
        base_url: openai.baseUrl,
        model: "qwen2-vl",
        api_key: "sk-test-secret",
        capabilities: ["text", "vision"],
        max_tokens: 512,
        timeout: 5,
        guided_decoding: true,
        max_retries: 2,
      },
      { id: "text-vllm", api_type: "openai", base_url: openai.baseUrl, model: "qwen2.5", capabilities: ["text", "translation"], timeout: 5 },
      {
        id: "llava",
        api_type: "ollama",
        base_url: ollama.baseUrl,
        model: "llava:13b",
        capabilities: ["text", "vision"],
        max_tokens: 300,
        timeout: 5,
        guided_decoding: true,
      },
    ];
    Object.assign(kit, {
      db: store.db,
      dataDir: fresh.dataDir,
      openai,
      ollama,
      ctx: (o: { extra?: ModelInput[]; signal?: AbortSignal; timezone?: string } = {}) => {
        const clock = new ManualClock(NOW);
        const settings = buildSettings({ app: { timezone: o.timezone ?? "UTC" }, llm: { models: [...models(), ...(o.extra ?? [])] } });
        // The real care services over this store: the models service reads the store, the data dir, the clock and the settings.
        const app: Partial<AppContext> = { db: store.db, dialect: store.dialect, clock, log, settings, dataDir: fresh.dataDir };
        return { clock, log, services: careServices(app as AppContext), signal: o.signal ?? new AbortController().signal };
      },
      image: (rel: string, label = rel) => {
        const full = path.join(fresh.dataDir, rel);
        fs.mkdirSync(path.dirname(full), { recursive: true });
        fs.writeFileSync(full, Buffer.concat([JPEG, Buffer.from(label)]));
        return rel;
      },
      media: async (sensor_id: string, room_name: string | null, label: string, minutesAgo: number) => {
        const rel = kit.image(`media/${sensor_id}/${label}.jpg`, label);
        await store.db("camera_media").insert({ sensor_id, room_name, path: rel, captured_at: new Date(NOW - minutesAgo * MIN).toISOString() });
        return rel;
      },
      input: (data: Record<string, unknown> = {}, media_paths: string[] = [], step_type = "llm_call") => ({
        ...stepInput(data, step_type),
        trigger: trigger({ trigger_type: "sensor_event", sensor_id: "hall_cam", room_name: "Hall", media_paths }),
      }),
    });
    close = async () => {
      await openai.close();
      await ollama.close();
      await store.close();
      await fresh.drop();
    };
  });
  beforeEach(async () => {
    await kit.db("camera_media").delete();
    kit.openai.reset();
    kit.ollama.reset();
  });
  after(async () => close());
  return kit;
}

/**
 * The care services a rehearsed run's handlers are given: the scratch household's own for
 * everything that reads (presence, activities, signals, tracking, media, templates, time),
 * and recorders for everything that acts on the world. A notification goes through the real
 * notification service (levels, channels, rendered texts, the alert in the scratch store) to
 * channels that keep the message instead of sending it. A question to an outside service
 * (a language model, person identification, scene analysis, semantic memory) gets the answer
 * the recorded run of the same input got when there is one, is asked for real only when the
 * rehearsal was told to, and otherwise is not asked: the step sees the service as unavailable,
 * which the run's report says ("not rehearsed"), never an invented answer. A prompt gets the
 * senior's answer to the same prompt of that recorded run, if she gave one.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { CareServices } from "../../../../nodes/_kit/care-services";
import type { ServiceAnswer } from "../../../../vocabulary/answers";
import type { NewPrompt } from "../../../../vocabulary/prompts";
import type { StepResult } from "../../../../nodes/_kit/handler-types";
import type { CareContext } from "../../core/context";
import { registeredChannels } from "../../services/notify/channels";
import { channelNames } from "../../core/language/channel-names";
import type { Channels } from "../../services/notify/dispatch";
import { respond } from "../../services/interactive/interactive.service";
import type { Action, AnswerChannel } from "../../../household/prompts/prompts.store";
import { sendNotification } from "../../services/notify/notify.service";
import type { EffectLog } from "./would-send";

/** Which rehearsed run the current handler works for (MiniRed runs each input inside it). */
export const currentRun = new AsyncLocalStorage<{ execution_id: number }>();
const runId = (): number | null => currentRun.getStore()?.execution_id ?? null;

/** The recorded (live) run that saw the same input as a rehearsed run, for its answers. */
export type RecordedRunOf = (executionId: number) => Promise<{ id: number; pipeline_data: Record<string, unknown> } | null>;

/** How a person answered the same prompt (same step) of the recorded run of the same input. */
export interface RecordedPromptAnswer {
  from_execution_id: number;
  channel: AnswerChannel;
  action: Action;
  /** How long after the prompt went out the answer came. */
  after_ms: number;
}

export interface RehearsalServiceOptions {
  effects: EffectLog;
  recordedRunOf: RecordedRunOf;
  /** Null when the recorded prompt ran out, or there is no recorded run or prompt: the rehearsed one then runs to its countdown. */
  recordedPromptAnswer: (executionId: number, stepId: number) => Promise<RecordedPromptAnswer | null>;
  /** Answers being given, for the replay to wait on (replay.ts `busy`). */
  answering: Set<Promise<unknown>>;
  /** Ask outside services (models, perception) for real when no recorded answer exists. */
  callModels: boolean;
}

const NOT_ASKED = "not rehearsed: no recorded answer for this input, and the rehearsal was not allowed to call outside services";

/** Channels that keep each message (rendered by the real channel layer) instead of sending it. */
function recordingChannels(effects: EffectLog): Channels {
  return {
    optionKeys: registeredChannels.optionKeys,
    find: (type) => {
      const entry = registeredChannels.find(type);
      if (!entry) return undefined;
      return {
        spec: entry.spec,
        handler: async (_hctx, message) => {
          effects.send({ execution_id: message.execution_id, kind: "notification", target: type, text: message.message, alert_level: message.alert_level });
          return { channel: type, delivered: true, detail: "rehearsal: would send" };
        },
      };
    },
  };
}

/** The scratch home's services with their effects recorded: `real` are the scratch context's own. */
export function rehearsalServices(scratch: CareContext, real: CareServices, opts: RehearsalServiceOptions): CareServices {
  const { effects, callModels } = opts;
  const channels = recordingChannels(effects);
  const notAsked = <T>(service: string): ServiceAnswer<T> => {
    effects.skipped({ execution_id: runId(), service, reason: NOT_ASKED });
    return { ok: false, reason: NOT_ASKED };
  };
  // Perception services: asked for real only when allowed (their answers are not recorded per step).
  const outside = <A extends unknown[], T>(service: string, ask: (...a: A) => Promise<ServiceAnswer<T>>) => {
    return (...a: A): Promise<ServiceAnswer<T>> => (callModels ? ask(...a) : Promise.resolve(notAsked<T>(service)));
  };
  const services: CareServices = {
    ...real,
    notify: {
      send: async (input, config, signal) => {
        const { plan, receipts } = await sendNotification(scratch, { clock: scratch.clock, log: scratch.log, services, signal }, input, config, channels);
        return { receipts, messages: plan.messages, names: channelNames([...plan.channels, ...receipts.map((r) => r.channel)]) };
      },
    },
    prompts: {
      record: async (prompt) => {
        effects.send({ execution_id: prompt.execution_id, kind: "prompt", target: "interactive_prompt", text: prompt.popup_message || prompt.message });
        await real.prompts.record(prompt);
        const recorded = await opts.recordedPromptAnswer(prompt.execution_id, prompt.step_id);
        if (recorded) answerAsRecorded(scratch, opts, prompt, recorded);
      },
    },
    webapp: {
      broadcast: (frame) => {
        // A prompt's frame is the prompt recorded above: listed once, as the prompt.
        if (frame.type !== "interactive_prompt")
          effects.send({ execution_id: runId(), kind: "webapp", target: frame.type, text: typeof frame.message === "string" ? frame.message : "" });
        return 1;
      },
      announce: async (request) => {
        effects.send({ execution_id: runId(), kind: "speech", target: "web_app", text: request.text });
        return { ok: true, value: { mode: request.mode, clients: 1, bytes: 0 } };
      },
      realtimeConfigured: real.webapp.realtimeConfigured,
      converse: async (request) => {
        effects.send({ execution_id: runId(), kind: "speech", target: "voice_companion", text: request.text ?? request.instruction ?? "" });
        return { ok: true, value: { session_id: "rehearsal", model: "rehearsal", clients: 1, joined: false } };
      },
    },
    models: {
      runStep: async (input, config, signal): Promise<StepResult> => {
        const recorded = await opts.recordedRunOf(input.execution_id);
        if (recorded && config.output_key in recorded.pipeline_data) {
          effects.usedRecorded({ execution_id: input.execution_id, service: "llm", from_execution_id: recorded.id });
          return { success: true, data: { [config.output_key]: recorded.pipeline_data[config.output_key] } };
        }
        if (callModels) return real.models.runStep(input, config, signal);
        effects.skipped({ execution_id: input.execution_id, service: "llm", reason: NOT_ASKED });
        return { success: false, error: NOT_ASKED, data: { [config.output_key]: null } };
      },
    },
    eink: {
      render: async (request) => {
        effects.send({ execution_id: runId(), kind: "eink", target: (request.sensor_ids ?? []).join(",") || "all displays", text: request.text ?? "" });
        const minutes = request.expires_in_minutes ?? 60;
        return { sensor_ids: [...(request.sensor_ids ?? [])], expires_at: new Date(scratch.clock.now() + minutes * 60_000).toISOString() };
      },
    },
    scene: { analyze: outside("scene_analysis", real.scene.analyze) },
    memory: {
      roomTrend: outside("semantic_memory", real.memory.roomTrend),
      snapshots: outside("semantic_memory", real.memory.snapshots),
      recentObjects: outside("semantic_memory", real.memory.recentObjects),
      searchObservations: outside("semantic_memory", real.memory.searchObservations),
    },
    identity: { identify: outside("person_identification", real.identity.identify) },
    hub: {
      call: async (request) => {
        effects.send({ execution_id: runId(), kind: "hub_call", target: `${request.domain}.${request.service}`, text: request.entity_id ?? "" });
        return { ok: true, value: { response: null } };
      },
      speak: async (request) => {
        effects.send({ execution_id: runId(), kind: "speech", target: request.media_player ?? request.room_name ?? "hub speaker", text: request.text });
        return { ok: true, value: { media_player: request.media_player ?? "rehearsal", url: "" } };
      },
      weather: real.hub.weather,
    },
    chat: {
      send: async (request) => {
        effects.send({
          execution_id: runId(),
          kind: "chat",
          target: request.targets.map((t) => t.name).join(", "),
          text: request.text,
          alert_level: request.alert_level,
        });
        return { ok: true, value: request.targets.map((t) => ({ target: t.name, delivered: true, detail: "rehearsal: would send" })) };
      },
    },
    knowledge: {
      deliverCard: async (request) => {
        effects.send({ execution_id: request.execution_id, kind: "card", target: request.channels.join(","), text: `card ${request.card_id}` });
        return {
          delivery_id: 0,
          card_title: `card ${request.card_id}`,
          receipts: request.channels.map((c) => ({ channel: c, delivered: true, detail: "rehearsal: would show" })),
        };
      },
      startQuiz: async (request) => {
        effects.send({ execution_id: request.execution_id, kind: "quiz", target: "quiz", text: `quiz ${request.quiz_id}` });
        return {
          started: false,
          reason: "not rehearsed: a quiz needs the senior's answers",
          previous_session_id: 0,
          previous_started_at: new Date(scratch.clock.now()).toISOString(),
        };
      },
    },
  };
  return services;
}

/**
 * The rehearsed prompt gets the recorded answer, as long after it went out as the recorded one
 * did, on the rehearsal's clock, through the same path a tablet's answer takes. Should the
 * rehearsed run no longer wait for it (a draft changed the countdown), the answer is refused
 * as it would have been live, and the run keeps its own outcome.
 */
function answerAsRecorded(scratch: CareContext, opts: RehearsalServiceOptions, prompt: NewPrompt, recorded: RecordedPromptAnswer): void {
  scratch.clock.at(Date.parse(prompt.created_at) + recorded.after_ms, () => {
    const answer = { execution_id: prompt.execution_id, step_id: prompt.step_id, channel: recorded.channel, action: recorded.action };
    const given = respond(scratch, answer, "senior (recorded)")
      .then((result) => {
        if (result.success)
          opts.effects.usedRecorded({ execution_id: prompt.execution_id, service: "interactive_prompt", from_execution_id: recorded.from_execution_id });
      })
      .catch((err: unknown) => scratch.log.debug({ err, execution_id: prompt.execution_id }, "rehearsal: the recorded answer was not applied"))
      .finally(() => opts.answering.delete(given));
    opts.answering.add(given);
  });
}

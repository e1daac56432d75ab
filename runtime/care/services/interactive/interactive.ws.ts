/**
 * The web app's side of prompts on `/ws`.
 *
 * Answers: `{type: "interactive_response", execution_id, step_id, action, raw_response,
 * channel?}` (channel defaults to `pwa_popup_text`). The answering client gets `{type:
 * "interactive_response_result", execution_id, step_id, success, message, action}`; a bad
 * frame gets the hub's `{type: "error", detail}`.
 *
 * Replay: a client that connects (after its welcome frame) is sent every prompt still open
 * (unanswered, countdown running, run not ended) as the step sent it, with the seconds left
 * as `countdown_seconds`, so a tablet that was offline when a prompt went out still shows
 * it. Every client that may connect gets it, as it would have got the broadcast; a client
 * already showing it (a reconnect without reload) recognises it by execution and step.
 */
import { promptFrame } from "../../../../nodes/_kit/prompt-frame";
import type { CareContext } from "../../core/context";
import type { WebAppClient, WebAppFrame } from "../../../platform/ws/webapp-hub";
import { isoNow } from "../../../platform/core/clock";
import { NotFoundError } from "../../../platform/core/errors";
import { getRun } from "../../core/pipeline/runs/runs.service";
import { respond } from "./interactive.service";
import { openPrompts, type PromptRow } from "../../../household/prompts/prompts.store";

const registered = new WeakSet<CareContext>();

/** Once per app: the `/ws` answer frame and the replay of open prompts to each new client. */
export function registerInteractiveHandlers(ctx: CareContext): void {
  if (registered.has(ctx)) return;
  registered.add(ctx);
  ctx.webapp.onMessage("interactive_response", { method: "POST", path: "/api/v1/interactive-responses" }, async (frame: WebAppFrame, client: WebAppClient) => {
    const { type: _type, ...body } = frame;
    const result = await respond(ctx, { channel: "pwa_popup_text", ...body }, client.principal.name);
    client.send({ type: "interactive_response_result", execution_id: body.execution_id, step_id: body.step_id, ...result });
  });
  ctx.webapp.onConnect((client) =>
    replayOpenPrompts(ctx, client).catch((err) => ctx.log.warn({ err, caller: client.principal.name }, "web app: open prompts were not replayed")),
  );
}

const LIVE_RUN = new Set(["running", "waiting"]);

async function replayOpenPrompts(ctx: CareContext, client: WebAppClient): Promise<void> {
  const candidates = await openPrompts(ctx.db, isoNow(ctx.clock));
  if (candidates.length === 0) return;
  // A cancelled or failed run leaves its prompt unanswered: nobody could answer it any more.
  const live = new Set<number>();
  for (const p of candidates) if (await runIsLive(ctx, p)) live.add(p.id);
  // Read again just before sending: a prompt answered while the runs were looked up has had
  // its `interactive_prompt_closed` sent already, and must not come after it.
  const now = ctx.clock.now();
  for (const p of await openPrompts(ctx.db, new Date(now).toISOString())) {
    if (live.has(p.id)) client.send(promptFrame(p, now));
  }
}

async function runIsLive(ctx: CareContext, p: PromptRow): Promise<boolean> {
  try {
    return LIVE_RUN.has((await getRun(ctx, p.execution_id)).status);
  } catch (err) {
    if (err instanceof NotFoundError) return false; // the run is gone
    throw err;
  }
}

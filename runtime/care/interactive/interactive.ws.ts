/**
 * The web app answers prompts on `/ws` with `{type: "interactive_response", execution_id,
 * step_id, action, raw_response, channel?}` (channel defaults to `pwa_popup_text`). The
 * answering client gets `{type: "interactive_response_result", execution_id, step_id,
 * success, message, action}`; a bad frame gets the hub's `{type: "error", detail}`.
 */
import type { CareContext } from "../context";
import type { WebAppClient, WebAppFrame } from "../../platform/ws/webapp-hub";
import { respond } from "./interactive.service";

const registered = new WeakSet<CareContext>();

/** Once per app: the `/ws` answer frame. */
export function registerInteractiveHandlers(ctx: CareContext): void {
  if (registered.has(ctx)) return;
  registered.add(ctx);
  ctx.webapp.onMessage("interactive_response", { method: "POST", path: "/api/v1/interactive-responses" }, async (frame: WebAppFrame, client: WebAppClient) => {
    const { type: _type, ...body } = frame;
    const result = await respond(ctx, { channel: "pwa_popup_text", ...body }, client.principal.name);
    client.send({ type: "interactive_response_result", execution_id: body.execution_id, step_id: body.step_id, ...result });
  });
}

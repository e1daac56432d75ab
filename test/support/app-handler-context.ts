/** A handler context on a running app's context (real care services), for calling a step or channel handler directly. */
import type { HandlerContext } from "../../nodes/_kit/handler-types";
import type { CareContext } from "../../runtime/care/core/context";
import { careServices } from "../../runtime/care/services/care-services";

export function appHandlerContext(ctx: CareContext, signal: AbortSignal = new AbortController().signal): HandlerContext {
  return { clock: ctx.clock, log: ctx.log, services: careServices(ctx), signal };
}

import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./llm_call.node";

type Config = z.output<typeof spec.config>;

/** Asks the registry model; the models service runs it (runtime/llm/step/run-llm-step.ts); see docs/llm.md. */
export const handler: StepHandler<Config> = (ctx, input, config) => ctx.services.models.runStep(input, config, ctx.signal);

import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./vision_analysis.node";

type Config = z.output<typeof spec.config>;

/** Legacy type: runs exactly as llm_call (its config is llm_call's with its own default output_key). */
export const handler: StepHandler<Config> = (ctx, input, config) => ctx.services.models.runStep(input, config, ctx.signal);

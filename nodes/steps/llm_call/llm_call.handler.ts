import type { z } from "zod";
import type { AppContext } from "../../../runtime/context";
import { runLlmStep } from "../../../runtime/llm/step/run-llm-step";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./llm_call.spec";

type Config = z.output<typeof spec.config>;

/** Asks the registry model; see runtime/llm/step/run-llm-step.ts and docs/llm.md. */
export const handler: StepHandler<Config, AppContext> = (ctx, input, config) => runLlmStep(ctx, input, config);

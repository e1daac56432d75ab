import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./condition.node";

type Config = z.output<typeof spec.config>;

/** True or false port by the expression; an empty or broken expression is false (saving already refused a broken one). */
export const handler: StepHandler<Config> = (ctx, input, config) => {
  const compiled = ctx.services.conditions.compile(config.expression);
  const result = compiled.ok ? compiled.evaluate(input.pipeline_data) : false;
  const branch = result ? "true" : "false";
  return {
    data: {
      condition: { expression: config.expression, result, branch },
      ...(result && config.trigger_cooloff ? { _cooloff_triggered: true } : {}),
    },
    output_ports: [branch],
  };
};

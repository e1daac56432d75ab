import type { z } from "zod";
import type { StepHandler } from "../../_kit/handler-types";
import type { spec } from "./person_identification.node";

type Config = z.output<typeof spec.config>;

const WHY = "the person-identification service has no client in this installation yet";

/**
 * Graceful degradation (spec "Errors"): a perception step whose service cannot be reached
 * returns empty results and the run goes on. Until the person-identification client exists
 * that is every run: nobody identified, no sighting recorded, and the warning says why.
 */
export const handler: StepHandler<Config> = (_ctx, _input, config) => {
  return {
    data: {
      person_detections: [],
      ...(config.include_annotated_image ? { annotated_images: [] } : {}),
      room_transitions: [],
    },
    warning: `nobody identified: ${WHY}`,
  };
};

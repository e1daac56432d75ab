/**
 * The kinds of part careflow watches in itself (issue 44) and the changes a `system_health`
 * rule can fire on. Here, not in runtime/, because the trigger's spec (a node) names them and
 * nodes never import runtime/; the parts board takes its kinds from here.
 */
export const PART_KINDS = [
  "camera",
  "display",
  "terminal",
  "tablet",
  "hub",
  "tracking",
  "chat",
  "webhook",
  "model",
  "tts",
  "database",
  "disk",
  "media_store",
  "event_loop",
  "instance",
  "backup",
] as const;
export type PartKind = (typeof PART_KINDS)[number];

/** `went_<state>`: the part entered that state; `came_back`: it is ok again after a change that fired. */
export const PART_CHANGES = ["went_late", "went_silent", "went_down", "came_back"] as const;
export type PartChange = (typeof PART_CHANGES)[number];

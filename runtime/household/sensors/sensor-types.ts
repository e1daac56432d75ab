/** The five sensor types and the camera topology vocabulary of the spec. */
export const SENSOR_TYPES = ["camera", "presence", "button", "light", "eink"] as const;

export const RAW_DIRECTIONS = ["left-to-right", "right-to-left", "towards-camera", "away-from-camera", "stationary"] as const;
export const SEMANTIC_DIRECTIONS = ["entering", "exiting", "approaching_exit", "entering_depth", "stationary"] as const;

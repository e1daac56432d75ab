import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

export const spec = defineDevice({
  kind: "device",
  type: "aggregate",
  role: "stage",
  displayName: "Aggregate frames",
  description:
    'Hands each stored frame to its camera\'s aggregator: the first frame opens a batch for `aggregator.window_seconds`, `aggregator.batch_size` frames flush it at once, then `aggregator.cooldown_seconds` pass in which frames start no batch. A flushed batch fires the camera\'s `sensor_event` rules with its frames. Then answers the camera `{"status":"accepted","object_name"}`.',
  version: 1,
  config: z.object({}).strict(),
  handles: ["camera"],
  outputs: ["frame"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-th" },
});

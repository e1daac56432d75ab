import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

export const spec = defineDevice({
  kind: "device",
  type: "label_filter",
  role: "stage",
  displayName: "Label filter",
  description:
    'Keeps only the frames whose detected labels satisfy the camera\'s `cameras.<sensor_id>.label_filter` (`any` or `all` of its labels, trimmed and case-insensitive). Other frames are answered `{"status":"filtered","reason":"label_filter"}` and neither saved nor forwarded.',
  version: 1,
  config: z.object({}).strict(),
  handles: ["camera"],
  outputs: ["frame"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-filter" },
});

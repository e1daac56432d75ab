import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

export const spec = defineDevice({
  kind: "device",
  type: "rotate",
  role: "stage",
  displayName: "Rotate frame",
  description:
    "Turns a camera's frame clockwise by the camera's `cameras.<sensor_id>.rotate` setting (90, 180 or 270) and re-encodes it; frames of cameras without the setting pass unchanged.",
  version: 1,
  config: z.object({}).strict(),
  handles: ["camera"],
  outputs: ["frame"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-repeat" },
});

import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

export const spec = defineDevice({
  kind: "device",
  type: "in",
  role: "entry",
  displayName: "Device in",
  description:
    "Serves one device endpoint (POST /api/v1/device/camera or /api/v1/device/terminal). The device's key has been checked; this node validates the payload against the spec's schema and sends it on, or answers the device with what is wrong.",
  version: 1,
  config: z
    .object({
      device: z.enum(["camera", "terminal"]).default("camera").describe("Which device endpoint this node serves"),
    })
    .strict(),
  handles: ["camera", "terminal"],
  outputs: ["request"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-sign-in" },
});

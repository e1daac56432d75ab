import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

const pressAction = z.enum(["dismiss", "assist", "none"]);

export const spec = defineDevice({
  kind: "device",
  type: "terminal",
  role: "stage",
  displayName: "Terminal actions",
  description:
    "Handles the bedside terminal: a press can act on the newest open alert (dismiss: the senior is fine; assist: help is needed), recorded with the terminal's name, and every press or command fires the terminal's `sensor_event` rules with it in `trigger_input`.",
  version: 1,
  config: z
    .object({
      single_press: pressAction.default("dismiss").describe("What a single press does to the newest open alert"),
      double_press: pressAction.default("none").describe("What a double press does to the newest open alert"),
      long_press: pressAction.default("assist").describe("What a long press does to the newest open alert"),
    })
    .strict(),
  handles: ["terminal"],
  outputs: ["input"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-hand-pointer-o" },
});

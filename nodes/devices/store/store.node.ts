import { z } from "zod";
import { defineDevice } from "../../_kit/device-types";

export const spec = defineDevice({
  kind: "device",
  type: "store",
  role: "stage",
  displayName: "Store frame",
  description:
    "Stores the frame in the media store (content-addressed under the data dir, a media row with sensor, room, labels, boxes and time) and passes it on to be batched.",
  version: 1,
  config: z.object({}).strict(),
  handles: ["camera"],
  outputs: ["stored"],
  palette: { color: "#C7E9C0", icon: "font-awesome/fa-database" },
});

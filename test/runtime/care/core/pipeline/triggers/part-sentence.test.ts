/** The sentence a system_health run carries, per sort of part, in the household's time. */
import assert from "node:assert/strict";
import type { PartChangeEvent } from "../../../../../../runtime/platform/core/event-bus";
import { partSentence, theName } from "../../../../../../runtime/care/core/pipeline/triggers/part-sentence";

const change = (o: Partial<PartChangeEvent>): PartChangeEvent => ({
  part_id: "x",
  kind: "camera",
  name: "Kitchen camera",
  from: "late",
  to: "silent",
  since: "2026-03-02T13:15:00Z",
  last_seen: "2026-03-02T13:02:00Z",
  previous_since: "2026-03-02T13:07:00Z",
  previous_last_seen: "2026-03-02T13:02:00Z",
  ...o,
});
const TZ = "Europe/Berlin";

describe("the sentence of a part's change", () => {
  for (const [what, e, back, sentence] of [
    ["a quiet camera, from its last post", change({}), false, "The kitchen camera has sent nothing since 14:02."],
    [
      "a display never heard from",
      change({ kind: "display", name: "Hallway display", last_seen: null }),
      false,
      "The hallway display has not been heard from since careflow started.",
    ],
    [
      "a link down: from its last contact",
      change({
        kind: "hub",
        name: "Home hub",
        to: "down",
        since: "2026-03-02T13:12:00Z",
        last_seen: "2026-03-02T13:09:40Z",
        previous_since: "2026-03-02T13:10:00Z",
      }),
      false,
      "The home hub has been disconnected since 14:09.",
    ],
    [
      "a link never up: from when it went late",
      change({
        kind: "tablet",
        name: "The senior's tablet",
        to: "down",
        since: "2026-03-02T13:20:00Z",
        last_seen: null,
        previous_since: "2026-03-02T13:10:00Z",
      }),
      false,
      "The senior's tablet has been disconnected since 14:10.",
    ],
    [
      "a failing gauge says why",
      change({ kind: "disk", name: "Free disk of the data dir", from: "ok", to: "down", detail: "100 MiB free" }),
      false,
      "The free disk of the data dir is failing since 14:15 (100 MiB free).",
    ],
    [
      "a camera back",
      change({ from: "silent", to: "ok", since: "2026-03-02T13:51:00Z", last_seen: "2026-03-02T13:51:00Z", previous_since: "2026-03-02T13:17:00Z" }),
      true,
      "The kitchen camera is back since 14:51 (it had sent nothing since 14:02).",
    ],
  ] as const) {
    it(what, () => assert.equal(partSentence(e, back, TZ), sentence));
  }

  it("keeps an acronym's case and a name's own article", () => {
    assert.equal(theName("NATS link"), "The NATS link");
    assert.equal(theName("the senior's tablet"), "The senior's tablet");
  });
});

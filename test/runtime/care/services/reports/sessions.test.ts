/** The session pairing rule on its own: starts and ends from suffixes or metadata.session. */
import assert from "node:assert/strict";
import { pairSessions, sessionEdge } from "../../../../../runtime/care/services/reports";

describe("care reports: the pairing rule", () => {
  const a = (id: number, activity_type: string, minute: number, metadata_json: Record<string, unknown> = {}, person_id: string | null = "rose") => ({
    id,
    timestamp: new Date(Date.UTC(2026, 4, 4, 8, minute)).toISOString(),
    activity_type,
    person_id,
    room_name: null,
    confidence: 1,
    metadata_json,
    rule_id: null,
    execution_id: null,
  });

  it("reads starts and ends from suffixes or metadata.session, in any case", () => {
    assert.deepEqual(sessionEdge(a(1, "meal_start", 0)), { edge: "start", session_type: "meal" });
    assert.deepEqual(sessionEdge(a(1, "Bathroom_Exit", 0)), { edge: "end", session_type: "Bathroom" });
    assert.deepEqual(sessionEdge(a(1, "sleep", 0, { session: "end" })), { edge: "end", session_type: "sleep" });
    assert.deepEqual(sessionEdge(a(1, "eating", 0)), { edge: null, session_type: "eating" });
    assert.deepEqual(sessionEdge(a(1, "_start", 0)), { edge: null, session_type: "_start" });
  });

  it("pairs per person and type, in time order whatever the input order", () => {
    const sessions = pairSessions([
      a(4, "meal_end", 30),
      a(1, "meal_start", 0),
      a(2, "meal_start", 5, {}, "tom"),
      a(3, "MEAL_START", 10),
      a(5, "bathroom_enter", 40, {}, null),
    ]);
    assert.deepEqual(
      sessions.map((s) => [s.person_id, s.activity_type, s.start_activity_id, s.end_activity_id]),
      [
        ["rose", "meal", 1, 4],
        ["tom", "meal", 2, null],
        [null, "bathroom", 5, null],
      ],
    );
  });
});

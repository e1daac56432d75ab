/** The daily health message's words, from facts (pure): what a family reads, without ids. */
import assert from "node:assert/strict";
import { composeHealthReport, type HealthFacts } from "../../../../../runtime/care/services/health-report/report-text";
import type { PartView } from "../../../../../runtime/platform/health/parts-board";

const NOW = Date.parse("2026-06-01T07:00:00Z"); // 09:00 in Berlin
const at = (local: string) => new Date(Date.parse(`2026-06-01T${local}:00+02:00`)).toISOString();
const part = (p: Partial<PartView> & Pick<PartView, "id" | "kind" | "name">): PartView => ({ state: "ok", last_seen: at("08:59"), since: at("00:00"), ...p });
const SIX_OK: PartView[] = [
  part({ id: "device:hall_display", kind: "display", name: "hall_display" }),
  part({ id: "device:kitchen_cam", kind: "camera", name: "Kitchen camera" }),
  part({ id: "chat", kind: "chat", name: "Chat bot" }),
  part({ id: "database", kind: "database", name: "Database" }),
  part({ id: "disk", kind: "disk", name: "Free disk of the data dir" }),
  part({ id: "event_loop", kind: "event_loop", name: "Event loop" }),
];
const facts = (f: Partial<HealthFacts> = {}): HealthFacts => ({
  resident: "Rose",
  now: NOW,
  timeZone: "Europe/Berlin",
  parts: SIX_OK,
  runs: { total: 14, failed: 0 },
  alerts: [{ what: "door open at night", acknowledged: { by: "Anna", at: at("02:14") } }],
  ...f,
});

describe("the daily health message's text", () => {
  it("all is well: parts, runs, the alert and who took it, in the household's time", () => {
    assert.equal(
      composeHealthReport(facts()),
      "All is well at Rose's home (last 24 h): 6 of 6 parts answered; 14 rules ran; 1 alert (door open at night, acknowledged by Anna at 02:14).",
    );
  });

  it("a late part, a failed run and an alert nobody took need a look; names read as words", () => {
    const parts = SIX_OK.map((p) => (p.id === "device:hall_display" ? { ...p, state: "silent" as const, last_seen: at("07:40") } : p));
    const text = composeHealthReport(
      facts({ parts, runs: { total: 1, failed: 1 }, alerts: [{ what: "Rose asks for help\nin the hall", acknowledged: null }] }),
    );
    assert.equal(
      text,
      "Needs a look at Rose's home (last 24 h): 6 of 6 parts answered; 1 rule ran, 1 failed; 1 alert (Rose asks for help, nobody acknowledged it yet). Late: hall display, nothing since 07:40.",
    );
    assert.doesNotMatch(text, /device:|hall_display|silent/);
  });

  it("a part quiet for over a day, a link down, nothing ran, no alerts; a message sent late says so", () => {
    const parts = SIX_OK.map((p) =>
      p.id === "device:kitchen_cam"
        ? { ...p, last_seen: "2026-05-30T18:00:00.000Z" }
        : p.id === "chat"
          ? { ...p, state: "down" as const, since: at("08:10") }
          : p,
    );
    assert.equal(
      composeHealthReport(facts({ parts, runs: { total: 0, failed: 0 }, alerts: [], dueAt: "09:00" })),
      "Needs a look at Rose's home (last 24 h): 5 of 6 parts answered; no rules ran; no alerts. Late: Chat bot, disconnected since 08:10. Quiet all day: Kitchen camera. (This message was due at 09:00; careflow was not running then.)",
    );
  });

  it("in the chat's language: German and Hindi words, the same facts and clock, a date's month in her words", () => {
    const parts = SIX_OK.map((p) => (p.id === "device:hall_display" ? { ...p, state: "silent" as const, last_seen: "2026-05-30T18:00:00.000Z" } : p));
    const f = facts({ parts, runs: { total: 3, failed: 1 } });
    assert.equal(
      composeHealthReport(f, "de"),
      "Bitte nachsehen bei Rose (letzte 24 Std.): 5 von 6 Teilen haben sich gemeldet; 3 Regeln liefen, 1 fehlgeschlagen; 1 Alarm (door open at night, bestätigt von Anna um 02:14). Verspätet: hall display, nichts seit 30. Mai 20:00.",
    );
    assert.equal(
      composeHealthReport(facts({ resident: null, runs: { total: 1, failed: 0 }, alerts: [] }), "hi-IN"),
      "घर में सब ठीक है (पिछले 24 घंटे): 6 में से 6 हिस्सों ने जवाब दिया; 1 नियम चला; कोई अलर्ट नहीं।",
    );
    assert.match(composeHealthReport(f, "fr", "de"), /^Bitte nachsehen/, "a language without a catalog reads the household's");
  });
});

/**
 * `npm run fake-realtime`: the fake realtime speech model (realtime-server.ts) on a fixed port,
 * for trying the voice bridge without OpenAI. FAKE_REALTIME_PORT (default 8300) sets the port;
 * FAKE_REALTIME_KEY, if set, is the API key it requires; `--names ga` (or FAKE_REALTIME_NAMES=ga)
 * speaks the GA event names and session shape instead of the beta ones. Point the bridge's realtime URL at the
 * printed one. Every connection, client event and response is printed; lines on stdin script
 * the model (`help` lists them), e.g.
 * `script [{"transcript":"where is mum","calls":[{"name":"get_person_locations"}],"say":"{{output:get_person_locations}}"}]`.
 */
import { runConsole } from "./console-commands";
import type { RealtimeNames } from "./realtime-ga";
import { checkTurn, startFakeRealtime, type FakeRealtime, type Turn } from "./realtime-server";

const HELP = `commands:
  script <json>    replace the turns still to play: a turn or a list of turns, each
                   {"on"?: "speech"|"response", "transcript"?, "calls"?: [{"name", "arguments"?}], "say"}
  script           show the turns still to play
  say <text>       add a turn: the next speech is answered with this text
  log [n]          the last n client events (default 20; audio appends summed up)
  sessions         the connections, their session settings and the function outputs they sent
  drop             close every connection with 1012 (service restart)
  help | quit`;

/** Client events one per line, runs of audio appends folded into one line (there are many). */
function logLines(fake: FakeRealtime, n: number): string {
  const lines: string[] = [];
  let appends = { session: "", count: 0, bytes: 0 };
  const flush = () => {
    if (appends.count) lines.push(`${appends.session} input_audio_buffer.append ×${appends.count} (${appends.bytes} bytes)`);
    appends = { session: "", count: 0, bytes: 0 };
  };
  for (const { session, event } of fake.received) {
    if (event.type === "input_audio_buffer.append") {
      if (appends.session !== session) flush();
      appends = { session, count: appends.count + 1, bytes: appends.bytes + Number(event.bytes ?? 0) };
      continue;
    }
    flush();
    const { type, event_id: _id, ...rest } = event;
    const body = JSON.stringify(rest);
    lines.push(`${session} ${type} ${body.length > 200 ? `${body.slice(0, 200)}…` : body}`);
  }
  flush();
  return lines.slice(-n).join("\n") || "no client events yet";
}

function sessionLines(fake: FakeRealtime): string {
  return (
    fake.sessions
      .map((s) =>
        [
          `${s.id} ${s.open ? "open" : `closed (${s.closeCode})`} model ${s.model}`,
          `  instructions  ${JSON.stringify(s.config.instructions.slice(0, 120))}`,
          `  tools         ${s.config.tools.map((t) => t.name).join(", ") || "none"}`,
          `  turns         ${s.config.turn_detection ? `${s.config.turn_detection.type}, silence ${s.config.turn_detection.silence_duration_ms} ms` : "by hand (turn_detection null)"}`,
          `  voice         ${s.config.voice}, ${s.config.modalities.join("+")}`,
          ...Object.entries(s.functionOutputs).map(
            ([name, outputs]) => `  output of ${name}: ${outputs.map((o) => JSON.stringify(o.slice(0, 200))).join(" | ")}`,
          ),
        ].join("\n"),
      )
      .join("\n") || "no sessions yet"
  );
}

function run(fake: FakeRealtime, line: string): string | null {
  const trimmed = line.trim();
  const [cmd] = trimmed.split(/\s+/, 1);
  const rest = trimmed.slice(cmd.length).trim();
  switch (cmd) {
    case "":
      return null;
    case "help":
      return HELP;
    case "script": {
      if (!rest) return fake.script.length ? fake.script.map((t) => JSON.stringify(t)).join("\n") : "no turns left (the default turns answer)";
      const parsed: unknown = JSON.parse(rest);
      const turns = (Array.isArray(parsed) ? parsed : [parsed]).map(checkTurn);
      fake.setScript(turns);
      return `${turns.length} turn(s) to play`;
    }
    case "say": {
      if (!rest) return "usage: say <text>";
      const turn: Turn = { say: rest };
      fake.setScript([...fake.script, turn]);
      return `${fake.script.length} turn(s) to play`;
    }
    case "log":
      return logLines(fake, Number(rest) || 20);
    case "sessions":
      return sessionLines(fake);
    case "drop": {
      const open = fake.sessions.filter((s) => s.open).length;
      fake.closeAll();
      return `closed ${open} connection(s)`;
    }
    default:
      return `unknown command ${cmd}; ${HELP}`;
  }
}

/** `--names beta|ga` (or `--names=ga`), else FAKE_REALTIME_NAMES, else beta. */
function namesArg(argv: readonly string[]): RealtimeNames {
  const i = argv.findIndex((a) => a === "--names" || a.startsWith("--names="));
  const value = i < 0 ? (process.env.FAKE_REALTIME_NAMES ?? "beta") : argv[i].includes("=") ? argv[i].split("=")[1] : argv[i + 1];
  if (value !== "beta" && value !== "ga") throw new Error(`--names is beta or ga, not ${String(value)}`);
  return value;
}

async function main(): Promise<void> {
  const apiKey = process.env.FAKE_REALTIME_KEY || undefined;
  const names = namesArg(process.argv.slice(2));
  const fake = await startFakeRealtime({
    port: Number(process.env.FAKE_REALTIME_PORT ?? 8300),
    apiKey,
    names,
    log: (line) => console.log(`[realtime] ${line}`),
  });
  console.log(`fake realtime speech model (OpenAI Realtime API, ${names} events)
  URL      ${fake.url}?model=gpt-4o-realtime-preview
  API key  ${apiKey ? "FAKE_REALTIME_KEY" : "any (set FAKE_REALTIME_KEY to require one)"}
  audio    pcm16 24 kHz mono; server VAD threshold RMS 500
${HELP}`);
  runConsole(
    (line) => run(fake, line),
    () => fake.close(),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

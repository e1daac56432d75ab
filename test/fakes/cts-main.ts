/**
 * `npm run fake-cts`: plays Rose's scripted day (test/fakes/cts-script.ts) onto the NATS
 * JetStream streams careflow consumes, in protobuf, and says what it does.
 *
 *   npm run fake-cts -- [--nats nats://127.0.0.1:4222] [--prefix ""] [--speed 600] [--loop]
 *
 * `--speed 600` plays ten hours in a minute; the gaps between steps are capped at 5 s of real
 * time so a day never waits long. Start careflow with `cts.enabled: true` (and the cameras of
 * the script in `cts.cameras`, printed here) to watch Rose move and a dementia rule fire.
 */
import { CtsPublisher } from "./cts-publisher";
import { CAMERAS, roseDay, type ScriptStep } from "./cts-script";

const MAX_GAP_MS = 5000;

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const clockText = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}`;

async function play(pub: CtsPublisher, steps: ScriptStep[], speed: number, round: number): Promise<void> {
  let last = steps[0]?.at_s ?? 0;
  for (const step of steps) {
    const gapMs = Math.min(MAX_GAP_MS, ((step.at_s - last) * 1000) / speed);
    last = step.at_s;
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    const suffix = round > 0 ? `-r${round}` : "";
    if (step.kind === "event") await pub.event({ ...step.event, event_id: step.event.event_id + suffix });
    else if (step.kind === "signal") await pub.signal({ ...step.signal, signal_id: step.signal.signal_id + suffix });
    else await pub.revision({ ...step.revision, revision_id: step.revision.revision_id + suffix });
    process.stdout.write(`${clockText(step.at_s)}  ${step.say}\n`);
  }
}

async function main(): Promise<void> {
  const url = arg("nats", "nats://127.0.0.1:4222");
  const prefix = arg("prefix", "");
  const speed = Math.max(1, Number(arg("speed", "600")) || 600);
  const loop = process.argv.includes("--loop");
  const pub = await CtsPublisher.connect(url, prefix);
  process.stdout.write(`fake-cts: publishing Rose's day to ${url}${prefix ? ` (prefix ${prefix})` : ""} at ${speed}x\n`);
  process.stdout.write(`careflow settings for it:\n  cts: { enabled: true, stream_prefix: "${prefix}", cameras: ${JSON.stringify(CAMERAS)} }\n`);
  let round = 0;
  do {
    await play(pub, roseDay(), speed, round++);
  } while (loop);
  await pub.close();
}

main().catch((err) => {
  process.stderr.write(`fake-cts: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

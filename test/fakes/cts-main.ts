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
import { CAMERAS, roseDay } from "./cts-script";
import { play } from "./cts-player";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
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
    await play(pub, roseDay(), speed, round++, (line) => process.stdout.write(`${line}\n`));
  } while (loop);
  await pub.close();
}

main().catch((err) => {
  process.stderr.write(`fake-cts: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

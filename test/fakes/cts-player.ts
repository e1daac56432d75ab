/** Plays a script onto the streams, keeping its gaps divided by the speed (capped at 5 s each). */
import type { CtsPublisher } from "./cts-publisher";
import type { ScriptStep } from "./cts-script";

const MAX_GAP_MS = 5000;

export const clockText = (s: number) => `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}`;

export async function play(pub: CtsPublisher, steps: ScriptStep[], speed: number, round = 0, say: (line: string) => void = () => undefined): Promise<void> {
  let last = steps[0]?.at_s ?? 0;
  for (const step of steps) {
    const gapMs = Math.min(MAX_GAP_MS, ((step.at_s - last) * 1000) / speed);
    last = step.at_s;
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
    const suffix = round > 0 ? `-r${round}` : "";
    if (step.kind === "event") await pub.event({ ...step.event, event_id: step.event.event_id + suffix });
    else if (step.kind === "signal") await pub.signal({ ...step.signal, signal_id: step.signal.signal_id + suffix });
    else await pub.revision({ ...step.revision, revision_id: step.revision.revision_id + suffix });
    say(`${clockText(step.at_s)}  ${step.say}`);
  }
}

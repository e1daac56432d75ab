/**
 * Part changes as events (issue 44 §2). A part's state is computed when read, so nothing
 * happens when a camera goes quiet: on each tick of the board this compares every part's state
 * with the one seen at the tick before and publishes one `part.changed` per difference, with
 * the exact `since` of the new state. A part seen for the first time is only noted.
 */
import type { PartChangeEvent } from "../core/event-bus";
import type { PartState, PartsBoard, PartView } from "./parts-board";

/** A device's part id is its sensor's id, prefixed: the sensor (and its room) is found back from it. */
export const devicePartId = (sensorId: string): string => `device:${sensorId}`;
export const sensorOfPart = (partId: string): string | null => (partId.startsWith("device:") ? partId.slice("device:".length) : null);

export function watchPartChanges(board: PartsBoard, publish: (change: PartChangeEvent) => void): () => void {
  const seen = new Map<string, PartView>();
  let stable = board.stability();
  const compare = (announce: boolean) => {
    if (announce && board.unchangedSince(stable)) return;
    stable = board.stability();
    const now = board.list();
    for (const part of now) {
      const before = seen.get(part.id);
      seen.set(part.id, part);
      if (!announce || !before || before.state === part.state) continue;
      publish({
        part_id: part.id,
        kind: part.kind,
        name: part.name,
        from: before.state as PartState,
        to: part.state,
        since: part.since,
        last_seen: part.last_seen,
        previous_since: before.since,
        previous_last_seen: before.last_seen,
        ...(part.detail ? { detail: part.detail } : {}),
      });
    }
    // A part forgotten and made again later starts afresh.
    if (seen.size > now.length) for (const id of [...seen.keys()]) if (!now.some((p) => p.id === id)) seen.delete(id);
  };
  compare(false);
  return board.onTick(() => compare(true));
}

/** What the camera aggregator is given (a stored frame) and what became of it. */
export interface AggregatedFrame {
  sensor_id: string;
  room_name: string | null;
  media_id: number;
  /** The frame's path relative to the data dir (what `media_paths` carry). */
  path: string;
}

export type AddOutcome = "opened" | "added" | "flushed" | "cooldown" | "off";

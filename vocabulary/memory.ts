/** The semantic memory of what the cameras saw over time. */

/** A room's current object-trend state in semantic memory. */
export interface MemoryRoomTrend {
  room_id: string;
  room_name: string | null;
  clutter_score: number;
  trend_direction: string;
  overall_severity: string;
  persistent_objects: string[];
  novel_objects: string[];
  anomalies: Array<Record<string, unknown>>;
}

export interface MemoryTrendSnapshot {
  period_start: string | null;
  unique_object_count: number;
  object_counts: Record<string, number>;
  persistent_objects: string[];
  novel_objects: string[];
  embedding_variance: number;
}

export interface MemoryObject {
  label: string;
  observation_count: number;
  last_seen_at: string | null;
  confidence?: number;
}

export interface MemoryObservation {
  id: number;
  room_id: string;
  observed_at: string | null;
  description: string;
  object_list: string[];
  hazard_flags: string[];
  text_similarity: number;
  image_similarity: number;
  confidence?: number;
}

export interface ObservationSearch {
  room_id: string | null;
  since_minutes: number;
  limit: number;
  min_confidence: number;
}

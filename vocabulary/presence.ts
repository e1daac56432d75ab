/** Where a person is and whether they are home, as presence and rules see it. */

export type PresenceStatus = "present_room" | "present_home" | "asleep" | "away" | "stale" | "unknown";

export type HomeState = "at_home" | "asleep" | "away" | "state_unknown";

export interface PersonLocation {
  person_id: string;
  /** Both null: the person was last seen leaving the home. */
  room_id: string | null;
  room_name: string | null;
  source: string;
  confidence: number;
  updated_at: string;
}

export interface Presence {
  status: PresenceStatus;
  person_id: string | null;
  room_id: string | null;
  room_name: string | null;
  dwell_minutes: number | null;
  confidence: number;
  providers: string[];
  timestamp: string | null;
  location: PersonLocation | null;
}

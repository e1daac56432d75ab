/** Who a camera saw: face identification and the room transitions it implies. */

export interface IdentifyRequest {
  /** The frames, relative to the data dir (a trigger's `media_paths`), in the order taken. */
  media_paths: readonly string[];
  sensor_id: string | null;
  room_name: string | null;
  /** Default `recognition.threshold`. */
  threshold?: number;
  /** Only these persons are reported. */
  target_persons?: readonly string[];
  include_annotated_image: boolean;
  include_motion: boolean;
}

export interface PersonDetection {
  /** The person's name, or `unknown`. */
  identity: string;
  confidence: number;
  /** [x1, y1, x2, y2] */
  bbox: number[];
  person_id: string | null;
  name: string | null;
  /** An unknown face's stable id (`visitor-3`). */
  visitor_id: string | null;
  media_path: string;
  direction_raw: string | null;
  direction_semantic: string | null;
}

/** A room change read from a face's motion through the camera's movement_map. */
export interface RoomTransitionSeen {
  person_id: string;
  person_name: string | null;
  sensor_id: string | null;
  direction_raw: string;
  semantic: string;
  from_room_id: string | null;
  from_room_name: string | null;
  to_room_id: string | null;
  to_room_name: string | null;
  confidence: number;
}

export interface IdentifiedFrames {
  person_detections: PersonDetection[];
  /** Media paths of the annotated frames. */
  annotated_images: string[];
  room_transitions: RoomTransitionSeen[];
  /** Frames that could not be read or annotated, with why. */
  skipped: string[];
  backend: string;
}

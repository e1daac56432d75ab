/** Camera frames as stored and looked up. */

/** A camera frame in the media store, with a URL a chat server or a speaker can fetch it by. */
export interface CameraFrame {
  media_id: number;
  sensor_id: string;
  room_name: string | null;
  /** ISO-8601 UTC. */
  captured_at: string;
  /** Relative to the data dir: what a trigger's `media_paths` carry. */
  path: string;
  /** Signed and expiring (`media.signed_url_ttl_seconds`); it needs no API key. */
  url: string;
  labels: string[];
}

export interface RecentFramesQuery {
  /** Cameras by id: their frames wherever they were taken. */
  sensor_ids: readonly string[];
  /** And the frames other cameras took in these rooms (any case or spelling). Both empty: every camera. */
  room_names: readonly string[];
  /** Inclusive ISO-8601 bounds on the capture time. */
  since: string;
  until: string;
  /** The newest this many frames of each camera… */
  per_sensor: number;
  /** …or this many for the cameras named here (0: none). */
  sensor_limits: Readonly<Record<string, number>>;
}

/** What a scene analysis saw in camera frames: detections and hazards. */

export interface SceneDetection {
  label: string;
  confidence: number;
  /** [x1, y1, x2, y2] */
  bbox: number[];
  class_id: number;
}

export interface SceneHazard {
  name: string;
  severity: string;
  description: string;
  detection: SceneDetection;
}

/** One image's analysis by the scene-analysis service. */
export interface SceneAnalysis {
  detections: SceneDetection[];
  description: string;
  embedding: number[];
  hazards: SceneHazard[];
  detector_available: boolean;
  describer_available: boolean;
  embedder_available: boolean;
}

export interface SceneAnalysisRequest {
  run_detect: boolean;
  run_describe: boolean;
  run_embed: boolean;
  run_hazards: boolean;
  /** The camera the image came from, for the service's own correlation. */
  sensor_id?: string | null;
}

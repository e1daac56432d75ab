/** A language-model step's settings as the model service takes them. */

/** The llm_call config (and the legacy model steps', which share it). */
export interface ModelStepConfig {
  model_id: string;
  output_key: string;
  hallucination_marker?: string;
  prompt: string;
  special_instructions?: string;
  include_context: string[];
  response_format: "text" | "json_schema" | "json_free";
  response_schema?: string;
  response_json_schema?: string;
  image_source: "none" | "trigger" | "additional" | "both";
  max_images: number;
  additional_sensor_ids: string[];
  additional_room_names: string[];
  images_per_sensor: number;
  sort_by_sensor_then_time: boolean;
  image_time_filter?: { since_minutes?: number; time_start?: string; time_end?: string };
}

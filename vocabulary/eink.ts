/** A card rendered to the e-ink displays. */

export interface EinkRenderRequest {
  text?: string;
  template_id?: number;
  template?: string;
  sensor_ids?: string[];
  expires_in_minutes?: number;
  color_mode?: "rgb" | "bw_dither";
  /** A notification's level: the card's `title` and `footer` regions then say it and the time, in the senior's language. */
  alert_level?: string;
}

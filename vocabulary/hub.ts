/** The home hub: service calls, speech, the weather. */

export interface HubCall {
  domain: string;
  service: string;
  entity_id: string | null;
  data: Record<string, unknown>;
}

export interface SpeechRequest {
  text: string;
  /** The speaker; null: the room's speaker (`hub.speakers`), else `hub.media_player`. */
  media_player: string | null;
  /** The room to speak in when no speaker is named. */
  room_name: string | null;
  voice?: string;
  language?: string;
  model?: string;
  speed?: number;
}

export interface HubWeather {
  state: string;
  temperature: number | null;
  temperature_unit: string | null;
  humidity: number | null;
  wind_speed: number | null;
  wind_speed_unit: string | null;
  forecast: Array<Record<string, unknown>>;
}

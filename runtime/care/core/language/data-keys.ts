/**
 * The pipeline_data keys every run has before any step writes: the trigger context, the
 * chat and webhook `trigger_input`, and the localized `system` object. The executor builds
 * them from this table's names, and `/pipeline/data-keys` lists them with every step's
 * declared outputs.
 */
export interface DataKey {
  key: string;
  type: string;
  description: string;
  source: string;
}

const trigger = (key: string, type: string, description: string): DataKey => ({ key, type, description, source: "trigger" });
const input = (key: string, type: string, description: string): DataKey => ({ key: `trigger_input.${key}`, type, description, source: "trigger_input" });
const system = (key: string, type: string, description: string): DataKey => ({ key: `system.${key}`, type, description, source: "system" });

export const BASE_DATA_KEYS: readonly DataKey[] = [
  trigger(
    "trigger_type",
    "string",
    "How the run started: sensor_event, cron, manual, webhook, occupancy_duration, chat_app, cts_window, dementia_signal, system_health",
  ),
  trigger("sensor_id", "string|null", "The sensor that fired the rule"),
  trigger("room_name", "string|null", "The room of that sensor"),
  trigger("media_paths", "list", "Camera images that came with the trigger"),
  trigger("media_type", "string|null", "Their media type"),
  trigger("webhook_payload", "object|null", "The webhook or chat payload"),
  trigger("occupancy_duration_minutes", "number|null", "How long the sensor has been occupied (occupancy_duration rules)"),
  { key: "trigger_input", type: "object", description: "The JSON body of a webhook, the chat command, or the part that changed", source: "trigger_input" },
  input("command", "string", "Matched chat command, such as a slash command"),
  input("args", "list", "Words after the command"),
  input("text", "string", "Raw message text"),
  input("chat_id", "string", "Chat id"),
  input("from_user", "object", "Sender: id, first_name, username"),
  input("from_user.first_name", "string", "Sender's first name"),
  input("sentence", "string", "system_health: what happened, ready to send, e.g. The kitchen camera has sent nothing since 14:02."),
  input("part_name", "string", "system_health: the part that changed, e.g. Kitchen camera"),
  input("change", "string", "system_health: went_late, went_silent, went_down or came_back"),
  input("state", "string", "system_health: the part's state now (ok, late, silent, down)"),
  system("local_time", "string", "12-hour time with AM/PM, e.g. 7:05 PM"),
  system("weather", "object|null", "The hub's weather entity (hub.weather_entity): state, temperature, humidity, wind, forecast; null without one"),
  system("weather.state", "string", "The weather now, e.g. rainy, sunny"),
  system("weather.temperature", "number|null", "Temperature, in weather.temperature_unit"),
  system("local_time_24h", "string", "24-hour time, HH:MM"),
  system("local_hour_12h", "string", "Hour, 12-hour clock"),
  system("local_hour_24h", "string", "Hour, 24-hour clock"),
  system("local_minute", "string", "Minute"),
  system("local_ampm", "string", "AM or PM"),
  system("local_date", "string", "Date, YYYY-MM-DD"),
  system("local_day_of_week", "string", "Weekday name, e.g. Monday"),
  system("local_day_of_week_short", "string", "Short weekday name, e.g. Mon"),
  system("local_day_of_month", "integer", "Day of the month"),
  system("local_day_ordinal", "string", "Day with its ordinal suffix, e.g. 21st"),
  system("local_month_name", "string", "Month name"),
  system("local_month_name_short", "string", "Short month name"),
  system("local_month_number", "integer", "Month, 1-12"),
  system("local_year", "integer", "Year"),
  system("local_date_long", "string", "e.g. Monday, 21 September 2026"),
  system("local_date_friendly", "string", "e.g. Monday the 21st of September"),
  system("timezone", "string", "The household's IANA time zone"),
];

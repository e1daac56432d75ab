/** An activity a person did (meals, medication, sleep), as recorded. */

export interface Activity {
  id: number;
  timestamp: string;
  activity_type: string;
  person_id: string | null;
  room_name: string | null;
  confidence: number;
  metadata_json: Record<string, unknown>;
  rule_id: number | null;
  execution_id: number | null;
}

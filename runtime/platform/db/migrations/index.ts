/**
 * The schema's history, oldest first. Kept in code (not a directory scan) so the
 * compiled build and the TypeScript sources can never disagree about which exist.
 */
import type { Knex } from "knex";
import * as m001 from "./001_platform";
import * as m002 from "./002_flows";
import * as m004 from "./004_rules";
import * as m006 from "./006_executions";
import * as m003 from "./003_eink";
import * as m005 from "./005_tracking_state";
import * as m007 from "./007_camera_media";
import * as m009 from "./009_notifications";
import * as m008 from "./008_interactive";
import * as m010 from "./010_compact_runs";
import * as m011 from "./011_alert_idempotency";
import * as m012 from "./012_name_keys";
import * as m013 from "./013_media_store";
import * as m014 from "./014_ingest_batches";
import * as m017 from "./017_mcp_calls";
import * as m016 from "./016_sightings";
import * as m019 from "./019_alert_history";
import * as m020 from "./020_voice_turns";
import * as m015 from "./015_face_identity";
import * as m018 from "./018_daily_reports";
import * as m021 from "./021_prompt_frames";
import * as m022 from "./022_knowledge";
import * as m023 from "./023_knowledge_search";
import * as m026 from "./026_cts_streams";
import * as m027 from "./027_input_journal";
import * as m028 from "./028_knowledge_search_speed";
import * as m029 from "./029_knowledge_chunk_terms";
import * as m030 from "./030_cluster_leases";
import * as m031 from "./031_run_owners";
import * as m032 from "./032_run_cancel_requests";
import * as m033 from "./033_occupancy_shared";
import * as m037 from "./037_media_objects";
import * as m038 from "./038_cts_revised_tracks";
import * as m039 from "./039_popup_dismissals";
import * as m040 from "./040_managed_keys";
import * as m041 from "./041_chat_relatives";
import * as m042 from "./042_escalation_sent";
import * as m043 from "./043_careflow_versions";
import * as m044 from "./044_person_language";
import * as m045 from "./045_relative_language";
import * as m046 from "./046_escalation_claimed_by";

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: Record<string, Migration> = {
  "001_platform": m001,
  "002_flows": m002,
  "004_rules": m004,
  "006_executions": m006,
  "003_eink": m003,
  "005_tracking_state": m005,
  "007_camera_media": m007,
  "009_notifications": m009,
  "008_interactive": m008,
  "010_compact_runs": m010,
  "011_alert_idempotency": m011,
  "012_name_keys": m012,
  "013_media_store": m013,
  "014_ingest_batches": m014,
  "016_sightings": m016,
  "015_face_identity": m015,
  "017_mcp_calls": m017,
  "018_daily_reports": m018,
  "019_alert_history": m019,
  "020_voice_turns": m020,
  "021_prompt_frames": m021,
  "022_knowledge": m022,
  "023_knowledge_search": m023,
  "026_cts_streams": m026,
  "027_input_journal": m027,
  "028_knowledge_search_speed": m028,
  "029_knowledge_chunk_terms": m029,
  "030_cluster_leases": m030,
  "031_run_owners": m031,
  "032_run_cancel_requests": m032,
  "033_occupancy_shared": m033,
  "037_media_objects": m037,
  "038_cts_revised_tracks": m038,
  "039_popup_dismissals": m039,
  "040_managed_keys": m040,
  "041_chat_relatives": m041,
  "042_escalation_sent": m042,
  "043_careflow_versions": m043,
  "044_person_language": m044,
  "045_relative_language": m045,
  "046_escalation_claimed_by": m046,
};

export const migrationSource: Knex.MigrationSource<string> = {
  // Names start with their sequence number, so sorting gives the order they must run in.
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};

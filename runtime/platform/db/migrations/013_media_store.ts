/**
 * The media store's columns on `camera_media` (household/media): the content-addressed
 * object a row's frame is (`object_name`, `<sha256>.<ext>`, shared by rows with the same
 * bytes), its type and size, and what the camera saw (labels, boxes as JSON text). Rows
 * written before (a `path` only) keep working: the new columns are nullable.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("camera_media", (t) => {
    t.string("object_name", 80).nullable().index();
    t.string("content_type", 40).nullable();
    t.integer("byte_size").nullable();
    t.text("labels_json").nullable();
    t.text("boxes_json").nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("camera_media", (t) => {
    t.dropIndex(["object_name"]);
    t.dropColumn("object_name");
    t.dropColumn("content_type");
    t.dropColumn("byte_size");
    t.dropColumn("labels_json");
    t.dropColumn("boxes_json");
  });
}

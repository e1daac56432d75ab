/**
 * E-ink displays: templates (a background image and text regions) and each display's
 * active image with its expiry and delivery record. The images themselves are PNG files
 * under `<dataDir>/eink/images/`, named by their SHA-256, so rows hold only hashes.
 */
import type { Knex } from "knex";

const TS = 32; // ISO-8601 UTC strings of fixed width, as in 001_platform
const SHA256_HEX = 64;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("eink_templates", (t) => {
    t.increments("id").primary();
    t.string("name", 200).notNullable().unique();
    t.text("description").notNullable().defaultTo("");
    t.string("font_filename", 200).nullable();
    t.text("regions_json").notNullable().defaultTo("[]");
    t.boolean("is_default").notNullable().defaultTo(false).index();
    t.string("color_mode", 20).notNullable().defaultTo("rgb");
    t.string("background_hash", SHA256_HEX).notNullable();
    t.string("created_at", TS).notNullable();
    t.string("updated_at", TS).notNullable();
  });
  await knex.schema.createTable("eink_device_states", (t) => {
    t.string("sensor_id", 200).primary();
    // No foreign key: a display's delivery record outlives a template being deleted.
    t.integer("template_id").nullable();
    t.string("image_hash", SHA256_HEX).nullable();
    t.text("rendered_text").nullable();
    t.string("rendered_at", TS).nullable();
    t.string("expires_at", TS).nullable();
    t.string("last_served_hash", SHA256_HEX).nullable();
    t.string("last_served_at", TS).nullable();
    t.string("updated_at", TS).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists("eink_device_states");
  await knex.schema.dropTableIfExists("eink_templates");
}

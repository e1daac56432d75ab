/**
 * The knowledge repository (care/services/knowledge): what the family teaches (documents and their
 * images, chunked for retrieval), what the senior is shown (info cards with image slots,
 * quizzes with ordered questions) and what happened (queries, quiz sessions and their answers,
 * card deliveries). Times are ISO-8601 UTC text, tags and JSON shapes are JSON text, as in the
 * rest of the store. The lexical and vector indexes over chunks are dialect-specific and come
 * in a later migration of their own.
 *
 * Statuses (the spec leaves the names open; these are the original's):
 * documents `uploaded` → `chunked` → `approved`, `archived`; cards and quizzes `draft`,
 * `caregiver_review`, `approved`, `archived`; quiz sessions `started`, `in_progress`,
 * `completed`, `abandoned`, `timed_out`.
 */
import type { Knex } from "knex";

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable("knowledge_documents", (t) => {
    t.increments("id").primary();
    t.text("title").notNullable();
    t.text("source_text").notNullable();
    t.text("tags").notNullable().defaultTo("[]"); // JSON list of strings
    t.string("status", 20).notNullable().defaultTo("uploaded");
    t.string("created_by", 100).notNullable();
    t.string("created_at", 32).notNullable();
    t.string("updated_at", 32).notNullable();
    t.string("approved_at", 32).nullable();
    t.string("approved_by", 100).nullable();
    t.string("archived_at", 32).nullable();
    // The `llm.models` id the chunks' vectors were made with (null: not embedded yet).
    t.string("embedding_model", 100).nullable();
    t.index(["status"]);
  });

  await knex.schema.createTable("knowledge_document_images", (t) => {
    t.increments("id").primary();
    t.integer("document_id").notNullable().references("id").inTable("knowledge_documents").onDelete("CASCADE");
    t.string("object_name", 80).notNullable(); // the media store's content-addressed name
    t.string("mime_type", 40).notNullable();
    t.integer("width").nullable();
    t.integer("height").nullable();
    t.text("alt_text").notNullable().defaultTo("");
    t.integer("ord").notNullable().defaultTo(0);
    t.string("created_at", 32).notNullable();
    t.index(["document_id", "ord"]);
  });

  await knex.schema.createTable("knowledge_chunks", (t) => {
    t.increments("id").primary();
    t.integer("document_id").notNullable().references("id").inTable("knowledge_documents").onDelete("CASCADE");
    t.integer("chunk_index").notNullable();
    t.text("text").notNullable();
    t.integer("char_start").notNullable();
    t.integer("char_end").notNullable();
    t.integer("token_count").notNullable();
    t.unique(["document_id", "chunk_index"]);
  });

  await knex.schema.createTable("info_cards", (t) => {
    t.increments("id").primary();
    t.integer("document_id").nullable().references("id").inTable("knowledge_documents").onDelete("SET NULL");
    t.string("layout_id", 64).notNullable().defaultTo("text_only");
    t.text("title").notNullable();
    t.text("body_text").notNullable();
    t.text("voice_instruction").nullable();
    t.text("tags").notNullable().defaultTo("[]");
    t.string("status", 20).notNullable().defaultTo("draft");
    t.integer("version").notNullable().defaultTo(1);
    t.string("approved_by", 100).nullable();
    t.string("approved_at", 32).nullable();
    t.string("archived_at", 32).nullable();
    t.string("created_by", 100).notNullable();
    t.string("created_at", 32).notNullable();
    t.string("updated_at", 32).notNullable();
    t.index(["status"]);
    t.index(["document_id"]);
  });

  await knex.schema.createTable("info_card_slots", (t) => {
    t.increments("id").primary();
    t.integer("info_card_id").notNullable().references("id").inTable("info_cards").onDelete("CASCADE");
    t.integer("slot_index").notNullable();
    // Where the picture came from: a document's image, or an upload straight to the slot.
    t.integer("source_image_id").nullable().references("id").inTable("knowledge_document_images").onDelete("SET NULL");
    t.string("original_object_name", 80).nullable(); // null: the slot is cleared
    t.text("alt_text").notNullable().defaultTo("");
    t.text("crop_hints").notNullable().defaultTo("{}"); // JSON, e.g. {"focus": "center"}
    // JSON: surface → {object_name, width, height, format, color_mode, fit_mode}
    t.text("variants").notNullable().defaultTo("{}");
    t.string("rendered_at", 32).nullable();
    t.unique(["info_card_id", "slot_index"]);
  });

  await knex.schema.createTable("quizzes", (t) => {
    t.increments("id").primary();
    t.integer("document_id").nullable().references("id").inTable("knowledge_documents").onDelete("SET NULL");
    t.text("title").notNullable();
    t.string("question_layout_id", 64).notNullable().defaultTo("quiz_with_optional_image");
    t.text("intro_voice_template").notNullable().defaultTo("");
    t.text("voice_instruction").nullable();
    t.text("tags").notNullable().defaultTo("[]");
    t.string("status", 20).notNullable().defaultTo("draft");
    t.integer("version").notNullable().defaultTo(1);
    t.string("approved_by", 100).nullable();
    t.string("approved_at", 32).nullable();
    t.string("archived_at", 32).nullable();
    t.string("created_by", 100).notNullable();
    t.string("created_at", 32).notNullable();
    t.string("updated_at", 32).notNullable();
    t.index(["status"]);
  });

  await knex.schema.createTable("quiz_questions", (t) => {
    t.increments("id").primary();
    t.integer("quiz_id").notNullable().references("id").inTable("quizzes").onDelete("CASCADE");
    t.integer("ord").notNullable();
    t.string("question_type", 20).notNullable().defaultTo("multiple_choice"); // | open_ended
    t.text("question_text").notNullable();
    t.text("choices").notNullable().defaultTo("[]"); // JSON [{id, text, is_correct}]
    t.text("expected_answer").notNullable().defaultTo("");
    t.text("explanation").notNullable().defaultTo("");
    // JSON: {} or {original_object_name, alt_text, variants: surface → {...}} as a card slot
    t.text("image").notNullable().defaultTo("{}");
    t.index(["quiz_id", "ord"]);
  });

  await knex.schema.createTable("quiz_sessions", (t) => {
    t.increments("id").primary();
    t.integer("quiz_id").notNullable().references("id").inTable("quizzes").onDelete("RESTRICT");
    t.integer("rule_id").nullable();
    t.integer("execution_id").nullable();
    t.integer("step_id").nullable();
    t.string("senior_id", 64).nullable();
    t.string("status", 20).notNullable().defaultTo("started");
    t.integer("current_question_ord").notNullable().defaultTo(0);
    t.integer("correct_count").notNullable().defaultTo(0);
    t.integer("answered_count").notNullable().defaultTo(0);
    t.integer("question_count").notNullable().defaultTo(0);
    t.string("started_at", 32).notNullable();
    t.string("last_activity_at", 32).notNullable();
    t.string("expires_at", 32).nullable();
    t.string("completed_at", 32).nullable();
    t.index(["started_at"]);
    t.index(["status"]);
  });

  await knex.schema.createTable("quiz_responses", (t) => {
    t.increments("id").primary();
    t.integer("session_id").notNullable().references("id").inTable("quiz_sessions").onDelete("CASCADE");
    t.integer("question_id").notNullable();
    t.integer("question_ord").notNullable();
    t.text("question_text").notNullable();
    t.string("chosen_choice_id", 64).nullable();
    t.text("chosen_choice_text").nullable();
    t.text("open_ended_text").nullable();
    t.boolean("is_correct").nullable();
    t.string("channel", 40).notNullable();
    t.string("answered_at", 32).notNullable();
    t.integer("latency_ms").nullable();
    t.unique(["session_id", "question_id"]);
  });

  await knex.schema.createTable("info_card_deliveries", (t) => {
    t.increments("id").primary();
    t.integer("info_card_id").notNullable().references("id").inTable("info_cards").onDelete("RESTRICT");
    t.integer("rule_id").nullable();
    t.integer("execution_id").nullable();
    t.integer("step_id").nullable();
    t.text("channels").notNullable().defaultTo("[]"); // JSON list: pwa, eink, voice
    t.text("receipt").notNullable().defaultTo("{}"); // JSON: per channel, delivered or why not
    t.string("delivered_at", 32).notNullable();
    t.string("viewed_at", 32).nullable();
    t.string("dismissed_at", 32).nullable();
    t.string("dismissed_by", 100).nullable();
    t.index(["delivered_at"]);
  });

  await knex.schema.createTable("knowledge_queries", (t) => {
    t.increments("id").primary();
    t.string("asked_at", 32).notNullable();
    t.string("senior_id", 64).nullable();
    t.text("query_text").notNullable();
    t.text("answer_text").notNullable().defaultTo("");
    t.text("source_document_ids").notNullable().defaultTo("[]"); // JSON
    t.text("source_chunk_ids").notNullable().defaultTo("[]"); // JSON
    t.float("top_similarity").nullable();
    t.string("answered_via", 20).notNullable(); // model | passage | none
    t.string("channel", 40).notNullable(); // rest | mcp | voice | editor
    t.integer("latency_ms").nullable();
    t.index(["asked_at"]);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of [
    "knowledge_queries",
    "info_card_deliveries",
    "quiz_responses",
    "quiz_sessions",
    "quiz_questions",
    "quizzes",
    "info_card_slots",
    "info_cards",
    "knowledge_chunks",
    "knowledge_document_images",
    "knowledge_documents",
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

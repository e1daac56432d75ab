/**
 * What the web app's prompt frame needs, kept with the prompt, so a tablet that connects
 * while a prompt is open is sent it (`care/services/interactive/interactive.ws.ts`): the title, the
 * popup message as the step rendered it ("" for a voice-only prompt), the voice prompt and
 * instruction, and the two button texts. The countdown is not stored again: it is
 * `expires_at - created_at`, both already here.
 *
 * Rows from before this migration get the texts the step's version 1 used by default and
 * their `message` (which is the popup message, or the voice prompt when there was none), so
 * one still open at an upgrade is shown as it was. Rolling back drops the columns.
 */
import type { Knex } from "knex";

const TEXT_COLUMNS = ["title", "popup_message", "escalate_button_text", "dismiss_button_text"] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable("interactive_prompts", (t) => {
    for (const c of TEXT_COLUMNS) t.text(c).nullable();
    t.text("voice_prompt").nullable();
    t.text("voice_instruction").nullable();
  });
  await knex("interactive_prompts")
    .whereNull("title")
    .update({ title: "Question for You", escalate_button_text: "I need help", dismiss_button_text: "I'm okay", popup_message: knex.ref("message") });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable("interactive_prompts", (t) => {
    t.dropColumns(...TEXT_COLUMNS, "voice_prompt", "voice_instruction");
  });
}

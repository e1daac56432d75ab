/** Drawing question pictures with the quiz layout's (first) slot: on set, a layout change. */
import type { CareContext } from "../../../core/context";
import { isoAt } from "../../../../platform/core/clock";
import { findLayout } from "../layouts/layouts";
import { renderSlotVariants } from "../images/render-variants";
import { readOriginal } from "../images/stored-original";
import { questionsOf, quizById, updateQuestion } from "./quizzes.store";

export async function renderQuestionImages(ctx: CareContext, quizId: number): Promise<void> {
  const quiz = await quizById(ctx.db, quizId);
  if (!quiz) return;
  const spec = findLayout(ctx.settings, quiz.question_layout_id)?.image_slots[0];
  for (const q of await questionsOf(ctx.db, quizId)) {
    const name = q.image.original_object_name;
    if (!name) continue;
    const variants = spec ? await renderSlotVariants(ctx, await readOriginal(ctx, name), spec, q.image.crop_hints ?? {}) : {};
    await updateQuestion(ctx.db, q.id, { image: { ...q.image, variants, rendered_at: spec ? isoAt(ctx.clock.now()) : null } });
  }
}

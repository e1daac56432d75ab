/** What creating and changing a card accepts; suggest validates a model's draft against the same. */
import { z } from "zod";
import { tagsSchema, voiceInstructionSchema } from "../shared/fields";
import { FOCUS } from "../images/render-variants";
import { storeId } from "../../../../../nodes/_kit/store-id";

export const cardFields = {
  layout_id: z.string().min(1).max(64),
  title: z.string().trim().min(1, "cannot be blank").max(200),
  body_text: z.string().trim().min(1, "cannot be blank").max(4000),
  voice_instruction: voiceInstructionSchema,
  tags: tagsSchema,
  document_id: storeId().nullable(),
};

export const cardCreateSchema = z
  .object(cardFields)
  .partial()
  .required({ title: true, body_text: true })
  .extend({ layout_id: cardFields.layout_id.default("text_only") })
  .strict();
export type CardCreate = z.output<typeof cardCreateSchema>;

export const cardPatchSchema = z.object(cardFields).partial().strict();
export type CardPatch = z.output<typeof cardPatchSchema>;

export const cropHintsSchema = z.object({ focus: z.enum(FOCUS).optional() }).strict();

export const slotPatchSchema = z
  .object({
    alt_text: z.string().max(500),
    crop_hints: cropHintsSchema,
  })
  .partial()
  .strict();

export const slotFromDocumentSchema = z.object({ document_image_id: storeId(), alt_text: z.string().max(500).optional() }).strict();

/** A slot's or question's new picture, from an upload or a document's image, checked and stored. */
import { z } from "zod";
import { storeObject, type MediaContext } from "../../../../household/media/media.service";
import { NotFoundError, ValidationError } from "../../../../platform/core/errors";
import { parseInput } from "../../../../platform/core/validation";
import { documentImage } from "../documents/document-reads";
import { checkImage, EXT_OF } from "./image-input";
import { readOriginal } from "./stored-original";
import type { PictureSource } from "./upload-form";
import { storeId } from "../../../../../nodes/_kit/store-id";

export interface NewPicture {
  bytes: Buffer;
  object_name: string;
  source_image_id: number | null;
  alt_text: string | undefined;
}

const fromDocument = z.object({ document_image_id: storeId(), alt_text: z.string().max(500).optional() }).strict();
const altText = z.string().max(500).optional();

export async function newPicture(ctx: MediaContext, src: PictureSource): Promise<NewPicture> {
  if (src.kind === "upload") {
    const unknown = Object.keys(src.fields).find((k) => k !== "alt_text");
    if (unknown) throw new ValidationError(`${unknown}: unknown field (send 'image' and an optional 'alt_text')`);
    const alt_text = parseInput(altText, src.fields.alt_text, "alt_text");
    const checked = await checkImage(ctx.settings, src.bytes, "image");
    const object_name = await storeObject(ctx, checked.bytes, EXT_OF[checked.mime]);
    return { bytes: checked.bytes, object_name, source_image_id: null, alt_text };
  }
  if (src.body === undefined || src.body === null || typeof src.body !== "object" || Object.keys(src.body).length === 0)
    throw new ValidationError("body: send a multipart form with an 'image' file, or JSON {\"document_image_id\": n}");
  const { document_image_id, alt_text } = parseInput(fromDocument, src.body);
  const image = await documentImage(ctx.db, document_image_id);
  if (!image) throw new NotFoundError(`document_image_id: document image ${document_image_id} not found`);
  const bytes = await readOriginal(ctx, image.object_name);
  // Checked like an upload: a document's picture gets the same limits before it is decoded.
  await checkImage(ctx.settings, bytes, "document_image_id");
  return { bytes, object_name: image.object_name, source_image_id: image.id, alt_text: alt_text ?? image.alt_text };
}

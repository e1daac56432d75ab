/**
 * E-ink templates: a background (an 800x480 PNG in the image store) and text regions.
 * Exactly one template may be the default; it is what a display shows when it has no
 * current message, so it cannot be deleted while it is the default.
 */
import type { CareContext } from "../../core/context";
import { isoNow } from "../../../platform/core/clock";
import { ConflictError, NotFoundError, ValidationError } from "../../../platform/core/errors";
import { nameKey } from "../../../platform/core/name-key";
import { parseInput } from "../../../platform/core/validation";
import { isUniqueViolation } from "../../../platform/db/name-match";
import { normalizeBackground } from "./background";
import { detachTemplate } from "./device-states.store";
import { pruneImage, readImage, saveImage } from "./image-store";
import { defaultRegions, type Region } from "./region";
import { renderBackground } from "./renderer";
import { regionsToText, toTemplate, type EinkTemplate } from "./template";
import { parseRegions, templateFormSchema, templateUpdateSchema } from "./template-input";
import {
  clearOtherDefaults,
  defaultTemplateRow,
  deleteTemplateRow,
  insertTemplate,
  templateRow,
  templateRowByNameKey,
  templateRows,
  updateTemplateRow,
} from "./templates.store";

/** A multipart upload as the router hands it over: text fields and the optional image. */
export interface TemplateUpload {
  fields: Record<string, string>;
  image?: Buffer;
}

export async function listTemplates(ctx: CareContext): Promise<EinkTemplate[]> {
  return (await templateRows(ctx)).map(toTemplate);
}

export async function getTemplate(ctx: CareContext, id: number): Promise<EinkTemplate> {
  const row = await templateRow(ctx, id);
  if (!row) throw new NotFoundError(`Template ${id} not found`);
  return toTemplate(row);
}

/** The template with this name in any case or Unicode spelling, by its key (migration 012). */
export async function findTemplateByName(ctx: CareContext, name: string): Promise<EinkTemplate | undefined> {
  const row = await templateRowByNameKey(ctx, nameKey(name));
  return row ? toTemplate(row) : undefined;
}

export async function getDefaultTemplate(ctx: CareContext): Promise<EinkTemplate | undefined> {
  const row = await defaultTemplateRow(ctx);
  return row ? toTemplate(row) : undefined;
}

async function assertNameFree(ctx: CareContext, name: string, exceptId?: number): Promise<void> {
  const other = await findTemplateByName(ctx, name);
  if (other && other.id !== exceptId) throw new ConflictError(`A template named '${other.name}' already exists (id ${other.id})`);
}

/** A name taken by another writer between the check and the write: 409, as the check would. */
async function nameTakenMeanwhile(ctx: CareContext, name: string, err: unknown, exceptId?: number): Promise<never> {
  if (isUniqueViolation(err)) await assertNameFree(ctx, name, exceptId);
  throw err;
}

let blank: Promise<Buffer> | undefined;
const blankBackground = (): Promise<Buffer> => (blank ??= renderBackground(() => undefined));

export async function createTemplate(ctx: CareContext, upload: TemplateUpload): Promise<EinkTemplate> {
  const form = parseInput(templateFormSchema, upload.fields);
  const regions: Region[] = form.regions_json !== undefined ? parseRegions("regions_json", form.regions_json) : defaultRegions();
  await assertNameFree(ctx, form.name);
  const background = upload.image ? await normalizeBackground(upload.image) : await blankBackground();
  const backgroundHash = await saveImage(ctx, background);
  const now = isoNow(ctx.clock);
  const id = await ctx.db
    .transaction(async (trx) => {
      const newId = await insertTemplate(trx, {
        name: form.name,
        name_key: nameKey(form.name),
        description: form.description ?? "",
        font_filename: form.font_filename || null,
        regions_json: regionsToText(regions),
        is_default: form.is_default ?? false,
        color_mode: form.color_mode ?? "rgb",
        background_hash: backgroundHash,
        created_at: now,
        updated_at: now,
      });
      if (form.is_default) await clearOtherDefaults(trx, newId);
      return newId;
    })
    .catch((err: unknown) => nameTakenMeanwhile(ctx, form.name, err));
  return getTemplate(ctx, id);
}

export async function updateTemplate(ctx: CareContext, id: number, input: unknown): Promise<EinkTemplate> {
  const body = parseInput(templateUpdateSchema, input);
  await getTemplate(ctx, id);
  if (body.regions !== undefined && body.regions_json !== undefined) throw new ValidationError("regions_json: send either regions or regions_json, not both");
  const regions =
    body.regions !== undefined
      ? parseRegions("regions", body.regions)
      : body.regions_json !== undefined
        ? parseRegions("regions_json", body.regions_json)
        : undefined;
  if (body.name !== undefined) await assertNameFree(ctx, body.name, id);
  await ctx.db
    .transaction(async (trx) => {
      await updateTemplateRow(trx, id, {
        ...(body.name !== undefined ? { name: body.name, name_key: nameKey(body.name) } : {}),
        ...(body.description !== undefined ? { description: body.description } : {}),
        ...(body.font_filename !== undefined ? { font_filename: body.font_filename } : {}),
        ...(regions !== undefined ? { regions_json: regionsToText(regions) } : {}),
        ...(body.is_default !== undefined ? { is_default: body.is_default } : {}),
        ...(body.color_mode !== undefined ? { color_mode: body.color_mode } : {}),
        updated_at: isoNow(ctx.clock),
      });
      if (body.is_default) await clearOtherDefaults(trx, id);
    })
    .catch((err: unknown) => nameTakenMeanwhile(ctx, body.name ?? "", err, id));
  return getTemplate(ctx, id);
}

export async function replaceBackground(ctx: CareContext, id: number, upload: TemplateUpload): Promise<EinkTemplate> {
  const before = await getTemplate(ctx, id);
  const extra = Object.keys(upload.fields);
  if (extra.length > 0) throw new ValidationError(extra.map((k) => `${k}: unknown field (this route takes only the 'image' file)`).join("; "));
  if (!upload.image) throw new ValidationError("image: a file is required");
  const hash = await saveImage(ctx, await normalizeBackground(upload.image));
  await updateTemplateRow(ctx.db, id, { background_hash: hash, updated_at: isoNow(ctx.clock) });
  if (hash !== before.background_hash) await pruneImage(ctx, before.background_hash);
  return getTemplate(ctx, id);
}

export async function deleteTemplate(ctx: CareContext, id: number): Promise<void> {
  const template = await getTemplate(ctx, id);
  if (template.is_default) {
    throw new ConflictError(`Template '${template.name}' is the default; make another template the default before deleting it`);
  }
  await deleteTemplateRow(ctx, id);
  await detachTemplate(ctx, id);
  await pruneImage(ctx, template.background_hash);
}

/** The stored background as it was normalized (the raw template preview). */
export async function templateBackground(ctx: CareContext, template: EinkTemplate): Promise<Buffer> {
  const png = await readImage(ctx, template.background_hash);
  if (!png) throw new NotFoundError(`The background image of template ${template.id} is missing`);
  return png;
}

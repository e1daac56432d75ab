/** Which template a render uses, and the layout the renderer needs from it. */
import type { CareContext } from "../../core/context";
import { NotFoundError, ValidationError } from "../../../platform/core/errors";
import type { ColorMode } from "./color-mode";
import { ensureDefaultTemplate } from "./default-template";
import { readImage } from "./image-store";
import type { CardLayout } from "./renderer";
import type { EinkTemplate } from "./template";
import { findTemplateByName, getDefaultTemplate, getTemplate } from "./templates.service";

/**
 * By id, else by name, else the template named in `notifications.eink.default_template`,
 * else the default template. A reference to a template that does not exist is a 422.
 */
export async function resolveTemplate(ctx: CareContext, ref: { template_id?: number; template?: string }): Promise<EinkTemplate> {
  if (ref.template_id !== undefined) {
    try {
      return await getTemplate(ctx, ref.template_id);
    } catch (err) {
      if (err instanceof NotFoundError) throw new ValidationError(`template_id: template ${ref.template_id} does not exist`);
      throw err;
    }
  }
  if (ref.template !== undefined) {
    const byName = await findTemplateByName(ctx, ref.template);
    if (!byName) throw new ValidationError(`template: no template named '${ref.template}'`);
    return byName;
  }
  const configured = ctx.settings.notifications.eink.default_template;
  if (configured) {
    const byName = await findTemplateByName(ctx, configured);
    if (byName) return byName;
    ctx.log.warn({ template: configured }, "notifications.eink.default_template names no template; using the default template");
  }
  // A fresh install whose media store was down at start made none yet: made now (or a 503).
  const fallback = (await getDefaultTemplate(ctx)) ?? (await ensureDefaultTemplate(ctx).then(() => getDefaultTemplate(ctx)));
  if (!fallback) throw new ValidationError("template_id: no template given and no default template exists");
  return fallback;
}

export async function layoutFor(ctx: CareContext, template: EinkTemplate, colorMode?: ColorMode): Promise<CardLayout> {
  const background = await readImage(ctx, template.background_hash);
  if (!background) ctx.log.warn({ template_id: template.id }, "template background file missing; drawing on white");
  return {
    background,
    backgroundKey: template.background_hash,
    regions: template.regions,
    font_filename: template.font_filename,
    color_mode: colorMode ?? template.color_mode,
  };
}

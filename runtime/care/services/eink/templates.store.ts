/**
 * The `eink_templates` table: every query of it. templates.service.ts holds the rules
 * (names, the one default, backgrounds); the image store and the default template ask here.
 */
import type { Knex } from "knex";
import type { CareContext } from "../../core/context";
import type { TemplateRow } from "./template";

export async function templateRows(ctx: CareContext): Promise<TemplateRow[]> {
  return ctx.db("eink_templates").select("*").orderBy("id");
}

export async function templateRow(ctx: CareContext, id: number): Promise<TemplateRow | undefined> {
  return ctx.db("eink_templates").where({ id }).first();
}

export async function templateRowByNameKey(ctx: CareContext, key: string): Promise<TemplateRow | undefined> {
  return ctx.db("eink_templates").where({ name_key: key }).first();
}

export async function defaultTemplateRow(ctx: CareContext): Promise<TemplateRow | undefined> {
  return ctx.db("eink_templates").where({ is_default: true }).orderBy("id").first();
}

/** Whether there is any template at all (a fresh install has none). */
export async function anyTemplate(ctx: CareContext): Promise<boolean> {
  return !!(await ctx.db("eink_templates").first("id"));
}

/** Whether a template's background is this image (the image store keeps it then). */
export async function backgroundInUse(ctx: CareContext, hash: string): Promise<boolean> {
  return !!(await ctx.db("eink_templates").where({ background_hash: hash }).first("id"));
}

/** Inserts a template (in the caller's transaction) and returns its id. */
export async function insertTemplate(db: Knex, values: Record<string, unknown>): Promise<number> {
  const [row] = await db("eink_templates").insert(values).returning("id");
  return typeof row === "object" ? row.id : row;
}

/** Inserts a template unless its name is taken (two instances starting on one store). */
export async function insertTemplateUnlessNameTaken(ctx: CareContext, values: Record<string, unknown>): Promise<void> {
  await ctx.db("eink_templates").insert(values).onConflict("name_key").ignore();
}

export async function updateTemplateRow(db: Knex, id: number, values: Record<string, unknown>): Promise<void> {
  await db("eink_templates").where({ id }).update(values);
}

/** Makes `id` the only default, inside the caller's transaction. */
export async function clearOtherDefaults(db: Knex, id: number): Promise<void> {
  await db("eink_templates").whereNot({ id }).andWhere({ is_default: true }).update({ is_default: false });
}

export async function deleteTemplateRow(ctx: CareContext, id: number): Promise<void> {
  await ctx.db("eink_templates").where({ id }).delete();
}

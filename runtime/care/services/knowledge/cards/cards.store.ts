/** Queries on info_cards and info_card_slots (this folder owns them). */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../../platform/db/json-column";
import type { CropHints, VariantMap } from "../images/render-variants";

export interface CardRow {
  id: number;
  document_id: number | null;
  layout_id: string;
  title: string;
  body_text: string;
  voice_instruction: string | null;
  tags: string[];
  status: string;
  version: number;
  approved_by: string | null;
  approved_at: string | null;
  archived_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface SlotRow {
  id: number;
  info_card_id: number;
  slot_index: number;
  source_image_id: number | null;
  original_object_name: string | null;
  alt_text: string;
  crop_hints: CropHints;
  variants: VariantMap;
  rendered_at: string | null;
}

type Raw = Record<string, unknown>;

const card = (r: Raw): CardRow =>
  ({
    ...r,
    id: Number(r.id),
    document_id: r.document_id === null || r.document_id === undefined ? null : Number(r.document_id),
    version: Number(r.version),
    tags: fromJsonText<string[]>(r.tags as string, []),
  }) as CardRow;

const slot = (r: Raw): SlotRow =>
  ({
    ...r,
    id: Number(r.id),
    info_card_id: Number(r.info_card_id),
    slot_index: Number(r.slot_index),
    source_image_id: r.source_image_id === null || r.source_image_id === undefined ? null : Number(r.source_image_id),
    crop_hints: fromJsonText<CropHints>(r.crop_hints as string, {}),
    variants: fromJsonText<VariantMap>(r.variants as string, {}),
  }) as SlotRow;

export type NewCard = Omit<CardRow, "id" | "version" | "approved_by" | "approved_at" | "archived_at">;

export async function insertCard(db: Knex, c: NewCard): Promise<number> {
  const [row] = (await db("info_cards")
    .insert({ ...c, tags: toJsonText(c.tags) })
    .returning("id")) as Array<{ id: number } | number>;
  return Number(typeof row === "object" ? row.id : row);
}

export async function cardById(db: Knex, id: number): Promise<CardRow | undefined> {
  const r = (await db("info_cards").where({ id }).first()) as Raw | undefined;
  return r ? card(r) : undefined;
}

export interface CardFilter {
  status?: string;
  tag?: string;
  document_id?: number;
  limit: number;
  offset: number;
}

/** Tags are JSON text: a tag matches as the quoted string inside the list (both dialects). */
const quotedTag = (tag: string): string => `%${JSON.stringify(tag).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function listCardRows(db: Knex, f: CardFilter): Promise<{ rows: CardRow[]; total: number }> {
  const q = db("info_cards");
  if (f.status) q.where({ status: f.status });
  if (f.document_id !== undefined) q.where({ document_id: f.document_id });
  if (f.tag) q.whereRaw("tags like ? escape '\\'", [quotedTag(f.tag)]);
  const [{ n }] = (await q.clone().count({ n: "*" })) as Array<{ n: number | string }>;
  const rows = (await q.orderBy("id", "desc").limit(f.limit).offset(f.offset)) as Raw[];
  return { rows: rows.map(card), total: Number(n) };
}

export async function updateCard(db: Knex, id: number, patch: Partial<Omit<CardRow, "id">>): Promise<void> {
  const row: Raw = { ...patch };
  if (patch.tags) row.tags = toJsonText(patch.tags);
  await db("info_cards").where({ id }).update(row);
}

export async function deleteCardRow(db: Knex, id: number): Promise<void> {
  await db.transaction(async (trx) => {
    await trx("info_card_slots").where({ info_card_id: id }).delete();
    await trx("info_cards").where({ id }).delete();
  });
}

export async function slotsOf(db: Knex, cardId: number): Promise<SlotRow[]> {
  const rows = (await db("info_card_slots").where({ info_card_id: cardId }).orderBy("slot_index")) as Raw[];
  return rows.map(slot);
}

export interface SlotWrite {
  source_image_id?: number | null;
  original_object_name?: string | null;
  alt_text?: string;
  crop_hints?: CropHints;
  variants?: VariantMap;
  rendered_at?: string | null;
}

/** Creates the slot row or updates it (one row per card and index). */
export async function upsertSlot(db: Knex, cardId: number, index: number, w: SlotWrite): Promise<void> {
  const row: Raw = { ...w };
  if (w.crop_hints) row.crop_hints = toJsonText(w.crop_hints);
  if (w.variants) row.variants = toJsonText(w.variants);
  await db("info_card_slots")
    .insert({ info_card_id: cardId, slot_index: index, ...row })
    .onConflict(["info_card_id", "slot_index"])
    .merge(Object.keys(row).length ? Object.keys(row) : ["slot_index"]);
}

/** Object names the slots still hold: originals and every variant (the media sweep keeps them). */
export async function slotObjectsAmong(db: Knex, names: readonly string[]): Promise<Set<string>> {
  const wanted = new Set(names);
  const held = new Set<string>();
  if (wanted.size === 0) return held;
  const rows = (await db("info_card_slots").whereNotNull("original_object_name").select("original_object_name", "variants")) as Raw[];
  for (const r of rows) {
    const s = slot(r);
    for (const name of [s.original_object_name, ...Object.values(s.variants).map((v) => v?.object_name)]) if (name && wanted.has(name)) held.add(name);
  }
  return held;
}

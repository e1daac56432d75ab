/**
 * The `chat_relatives` and `chat_link_codes` tables (migration 041): the family's chats added or
 * changed on the Household page, and the one-time codes a relative sends to the bot. Nothing is
 * cached: a chat linked through one instance is a target of every instance at its next send.
 */
import type { Knex } from "knex";
import { fromJsonText, toJsonText } from "../../../platform/db/json-column";

export interface RelativeRow {
  id: number;
  chat_id: string;
  name: string;
  alert_levels: string[];
  /** BCP 47; null: the household's. */
  language: string | null;
  added_by: string;
  added_at: string;
  updated_at: string;
}

export interface LinkCodeRow {
  id: number;
  name: string;
  alert_levels: string[];
  language: string | null;
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  used_chat_id: string | null;
}

type Stored<T> = Omit<T, "alert_levels"> & { alert_levels: string };

const asRelative = (r: Stored<RelativeRow>): RelativeRow => ({ ...r, id: Number(r.id), alert_levels: fromJsonText<string[]>(r.alert_levels, []) });
const asCode = (r: Stored<LinkCodeRow>): LinkCodeRow => ({ ...r, id: Number(r.id), alert_levels: fromJsonText<string[]>(r.alert_levels, []) });

const RELATIVE_COLUMNS = ["id", "chat_id", "name", "alert_levels", "language", "added_by", "added_at", "updated_at"] as const;
const CODE_COLUMNS = ["id", "name", "alert_levels", "language", "created_by", "created_at", "expires_at", "used_at", "used_chat_id"] as const;

export async function listRelativeRows(db: Knex): Promise<RelativeRow[]> {
  const rows = await db<Stored<RelativeRow>>("chat_relatives")
    .select(...RELATIVE_COLUMNS)
    .orderBy("id");
  return rows.map(asRelative);
}

export async function relativeRow(db: Knex, chatId: string): Promise<RelativeRow | undefined> {
  const row = await db<Stored<RelativeRow>>("chat_relatives")
    .where("chat_id", chatId)
    .first(...RELATIVE_COLUMNS);
  return row ? asRelative(row) : undefined;
}

/** Adds the chat, or replaces its name, levels and language when it is there already. */
export async function upsertRelative(db: Knex, r: Omit<RelativeRow, "id">): Promise<void> {
  await db("chat_relatives")
    .insert({ ...r, alert_levels: toJsonText(r.alert_levels) })
    .onConflict("chat_id")
    .merge(["name", "alert_levels", "language", "updated_at"]);
}

export async function updateRelativeRow(
  db: Knex,
  chatId: string,
  change: { name?: string; alert_levels?: readonly string[]; language?: string | null },
  at: string,
): Promise<boolean> {
  const set: Record<string, string | null> = { updated_at: at };
  if (change.language !== undefined) set.language = change.language;
  if (change.name !== undefined) set.name = change.name;
  if (change.alert_levels !== undefined) set.alert_levels = toJsonText(change.alert_levels);
  return (await db("chat_relatives").where("chat_id", chatId).update(set)) > 0;
}

export async function deleteRelativeRow(db: Knex, chatId: string): Promise<boolean> {
  return (await db("chat_relatives").where("chat_id", chatId).delete()) > 0;
}

export async function insertLinkCode(db: Knex, code: Omit<LinkCodeRow, "id" | "used_at" | "used_chat_id">, digest: string): Promise<number> {
  const [inserted] = await db("chat_link_codes").insert({ ...code, alert_levels: toJsonText(code.alert_levels), digest }, ["id"]);
  return Number(typeof inserted === "object" ? (inserted as { id: number }).id : inserted);
}

/** Codes not used and not expired at `now`, oldest first. */
export async function pendingLinkCodes(db: Knex, now: string): Promise<LinkCodeRow[]> {
  const rows = await db<Stored<LinkCodeRow>>("chat_link_codes")
    .whereNull("used_at")
    .where("expires_at", ">", now)
    .select(...CODE_COLUMNS)
    .orderBy("id");
  return rows.map(asCode);
}

export async function deleteLinkCode(db: Knex, id: number): Promise<boolean> {
  return (await db("chat_link_codes").where({ id }).whereNull("used_at").delete()) > 0;
}

/**
 * Uses the code with this digest for a chat, if it is unused and not expired at `now`, and adds
 * (or updates) the chat as a relative in the same transaction. One conditional update decides
 * which of two instances (or two chats) got it: the other finds nothing to update.
 */
export async function redeemLinkCode(db: Knex, digest: string, chatId: string, now: string): Promise<LinkCodeRow | null> {
  return db.transaction(async (trx) => {
    const taken = await trx("chat_link_codes")
      .where({ digest })
      .whereNull("used_at")
      .where("expires_at", ">", now)
      .update({ used_at: now, used_chat_id: chatId });
    if (taken === 0) return null;
    const row = await trx<Stored<LinkCodeRow>>("chat_link_codes")
      .where("digest", digest)
      .first(...CODE_COLUMNS);
    const code = asCode(row!);
    await upsertRelative(trx, {
      chat_id: chatId,
      name: code.name,
      alert_levels: code.alert_levels,
      language: code.language,
      added_by: code.created_by,
      added_at: now,
      updated_at: now,
    });
    return code;
  });
}

/** Used and expired codes older than `before` go: they answer nothing and are no one's business. */
export async function pruneLinkCodes(db: Knex, before: string): Promise<void> {
  await db("chat_link_codes").where("expires_at", "<", before).delete();
}

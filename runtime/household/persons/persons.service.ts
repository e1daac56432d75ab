/** Household members: registration, enrollment status, alert profile, removal with their data. */
import type { Knex } from "knex";
import { copyRows } from "../../platform/db/table-copy";
import { z } from "zod";
import type { PlatformContext } from "../../platform/context";
import { isoNow } from "../../platform/core/clock";
import { ConflictError, NotFoundError } from "../../platform/core/errors";
import { parseInput } from "../../platform/core/validation";
import { fromJsonText, toBool, toJsonText } from "../../platform/db/json-column";
import { ctsAlertConfigSchema, type CtsAlertConfig } from "./alert-profiles";
import { presetOf, type AlertPresetId } from "./alert-presets";
import { canonicalTag, LANGUAGE_TAG_HINT } from "../../platform/i18n/language-tag";

export interface Person {
  person_id: string;
  display_name: string;
  notes: string | null;
  enrollment_status: "enrolled" | "not_enrolled";
  enrolled: boolean;
  embedding_count: number;
  enrolled_at: string | null;
  cts_alert_config: CtsAlertConfig;
  /** The language this person reads and hears (BCP 47); null: the household's `app.language`. */
  language: string | null;
  /** The spec's preset that `cts_alert_config` is (read-only, computed), or `custom`. */
  alert_profile: AlertPresetId | "custom";
  created_at: string;
  updated_at: string;
}

interface PersonRow {
  person_id: string;
  display_name: string;
  notes: string | null;
  enrolled: number | boolean;
  embedding_count: number;
  enrolled_at: string | null;
  cts_alert_config: string | null;
  language: string | null;
  created_at: string;
  updated_at: string;
}

/** Names of the fixed routes beside `/persons/{id}`: no person may be called that (`alert-profiles` cannot be a person id: it has a hyphen). */
export const RESERVED_PERSON_IDS: readonly string[] = ["enrolled", "locations"];

// person_id becomes part of hub entity ids (input_text.cc_{person_id}_location).
const personId = z
  .string()
  .regex(/^[a-z0-9_]{1,64}$/, "use 1-64 lowercase letters, digits or underscores")
  .refine((id) => !RESERVED_PERSON_IDS.includes(id), { message: "is a reserved word (a route name); choose another" });

const fields = {
  display_name: z.string().trim().min(1, "must not be empty").max(200),
  notes: z.string().max(2000).nullable(),
  cts_alert_config: ctsAlertConfigSchema,
  // Any well-formed tag: dates follow it through Intl even before its catalog exists (messages
  // then fall back to the household's language, then English). Kept in its canonical spelling.
  language: z
    .string()
    .refine((t) => canonicalTag(t) !== null, LANGUAGE_TAG_HINT)
    .transform((t) => canonicalTag(t) ?? t)
    .nullable(),
};

export const personCreateSchema = z
  .object({
    person_id: personId.optional(),
    display_name: fields.display_name,
    notes: fields.notes.optional(),
    cts_alert_config: fields.cts_alert_config.optional(),
    language: fields.language.optional(),
  })
  .strict();
export const personUpdateSchema = z.object(fields).partial().strict();

const toPerson = (row: PersonRow): Person => {
  const enrolled = toBool(row.enrolled);
  const config = fromJsonText<CtsAlertConfig>(row.cts_alert_config, null);
  return {
    person_id: row.person_id,
    display_name: row.display_name,
    notes: row.notes,
    enrollment_status: enrolled ? "enrolled" : "not_enrolled",
    enrolled,
    embedding_count: Number(row.embedding_count),
    enrolled_at: row.enrolled_at,
    cts_alert_config: config,
    alert_profile: presetOf(config),
    language: row.language ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
};

/** "Grandma Rose" → "grandma_rose". */
export const slugify = (name: string): string =>
  name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64) || "person";

export async function listPersons(ctx: PlatformContext): Promise<Person[]> {
  return (await ctx.db<PersonRow>("persons").select("*").orderBy("person_id")).map(toPerson);
}

export async function getPerson(ctx: PlatformContext, id: string): Promise<Person> {
  const row = await ctx.db<PersonRow>("persons").where({ person_id: id }).first();
  if (!row) throw new NotFoundError(`Person ${id} not found`);
  return toPerson(row);
}

export async function createPerson(ctx: PlatformContext, input: unknown): Promise<Person> {
  const body = parseInput(personCreateSchema, input);
  const derived = slugify(body.display_name);
  const id = body.person_id ?? (RESERVED_PERSON_IDS.includes(derived) ? `${derived}_person` : derived);
  // Said beside the field it comes from: the id given, or the name it was made from.
  if (await ctx.db("persons").where({ person_id: id }).first())
    throw new ConflictError(
      body.person_id
        ? `person_id: a person with person_id '${id}' already exists`
        : `display_name: another member's name already gives the person_id '${id}'; choose another name or give a person_id`,
    );
  const now = isoNow(ctx.clock);
  await ctx.db("persons").insert({
    person_id: id,
    display_name: body.display_name,
    notes: body.notes ?? null,
    cts_alert_config: body.cts_alert_config ? toJsonText(body.cts_alert_config) : null,
    language: body.language ?? null,
    created_at: now,
    updated_at: now,
  });
  ctx.bus.publish("person.added", { person_id: id });
  return getPerson(ctx, id);
}

export async function updatePerson(ctx: PlatformContext, id: string, input: unknown): Promise<Person> {
  const body = parseInput(personUpdateSchema, input);
  await getPerson(ctx, id);
  const { cts_alert_config, ...rest } = body;
  const patch: Record<string, unknown> = { ...rest, updated_at: isoNow(ctx.clock) };
  if (cts_alert_config !== undefined) patch.cts_alert_config = cts_alert_config === null ? null : toJsonText(cts_alert_config);
  await ctx.db("persons").where({ person_id: id }).update(patch);
  ctx.bus.publish("person.changed", { person_id: id });
  return getPerson(ctx, id);
}

/**
 * Tables holding a person's own data, removed with the person in one transaction.
 * Later capabilities (locations, sightings, enrollment) add theirs here.
 */
export const PERSON_DATA_TABLES: readonly string[] = [
  "person_activities",
  "person_locations",
  "person_location_history",
  "room_transitions",
  "dementia_signals",
  "sightings",
  "face_descriptors",
  "daily_reports",
];

export async function deletePerson(ctx: PlatformContext, id: string): Promise<void> {
  await getPerson(ctx, id);
  await ctx.db.transaction(async (trx) => {
    for (const table of PERSON_DATA_TABLES) {
      if (await trx.schema.hasTable(table)) await trx(table).where({ person_id: id }).delete();
    }
    await trx("persons").where({ person_id: id }).delete();
  });
  ctx.bus.publish("person.changed", { person_id: id });
}

/** The member's display name; null for an id that is no member (a visitor, a removed person). */
export async function displayNameOf(ctx: PlatformContext, id: string): Promise<string | null> {
  const row: { display_name: string } | undefined = await ctx.db("persons").where({ person_id: id }).first("display_name");
  return row?.display_name ?? null;
}

/** Display names of many ids in one query; an id that is no member maps to null. */
export async function displayNamesOf(ctx: PlatformContext, ids: readonly string[]): Promise<Map<string, string | null>> {
  const names = new Map<string, string | null>(ids.map((id) => [id, null]));
  if (ids.length === 0) return names;
  const rows: Array<{ person_id: string; display_name: string }> = await ctx
    .db("persons")
    .whereIn("person_id", [...names.keys()])
    .select("person_id", "display_name");
  for (const r of rows) names.set(r.person_id, r.display_name);
  return names;
}

/** Records a person's enrollment as the identity module keeps it (0 descriptors: not enrolled). */
export async function setEnrollment(ctx: PlatformContext, id: string, e: { embedding_count: number; enrolled_at: string | null }): Promise<void> {
  await ctx
    .db("persons")
    .where({ person_id: id })
    .update({
      enrolled: e.embedding_count > 0,
      embedding_count: e.embedding_count,
      enrolled_at: e.embedding_count > 0 ? e.enrolled_at : null,
      updated_at: isoNow(ctx.clock),
    });
}

/** How many persons there are (the demo seeds only an empty store). */
export async function countPersons(ctx: Pick<PlatformContext, "db">): Promise<number> {
  const rows = await ctx.db("persons").count<{ n: number | string }[]>({ n: "*" });
  return Number(rows[0].n);
}

/** Every person's person_id (bundle imports check references against them). */
export async function personIds(ctx: PlatformContext): Promise<string[]> {
  const rows: Array<{ person_id: string }> = await ctx.db("persons").select("person_id");
  return rows.map((p) => p.person_id);
}

/** Inserts a person as given, without the API's checks (the demo seed, inside its transaction). */
export async function insertPersonRow(
  db: Knex,
  row: { person_id: string; display_name: string; notes: string | null; cts_alert_config: string | null; created_at: string; updated_at: string },
): Promise<void> {
  await db("persons").insert(row);
}

/** The stored alert config (JSON text) of each of these persons that exists. */
export async function alertConfigRows(db: Knex, ids: readonly string[]): Promise<Array<{ person_id: string; cts_alert_config: string | null }>> {
  return db("persons")
    .select("person_id", "cts_alert_config")
    .whereIn("person_id", [...new Set(ids)]);
}

/** The household's members (with their alert profiles) into another store (a rehearsal's scratch store). */
export const copyPersonsInto = (from: Knex, to: Knex): Promise<number> => copyRows(from, to, "persons");

/**
 * Room and e-ink template names are unique by their key (`core/name-key.ts`: NFKC, full case
 * mapping, trimmed), kept in a `name_key` column beside the name with a unique index, so
 * 'KÜCHE' and 'Küche' are one name on SQLite (whose `lower()` folds only ASCII) and on
 * PostgreSQL (whose `lower()` follows the locale) alike. Keys are computed here in JavaScript
 * from the rows already stored; should `nameKey` ever change, a later migration recomputes them.
 *
 * Rows that already collide on the key (two rooms 'Küche' and 'KÜCHE', allowed before): the
 * oldest (lowest id) keeps its name; each later one is renamed with the first free suffix
 * ' (2)', ' (3)', … ('KÜCHE (2)'), and a warning naming both rows goes to stderr. Nothing is
 * merged or deleted: sensors keep their room by id. Rolling back drops the key column and
 * index and leaves the renamed names as they are.
 */
import type { Knex } from "knex";
import { NAME_KEY_MAX_LENGTH, nameKey } from "../../core/name-key";

interface Named {
  table: string;
  /** The name column's length (001, 003), which a suffixed name must still fit. */
  nameMax: number;
  what: string;
}

const TABLES: readonly Named[] = [
  { table: "rooms", nameMax: 100, what: "room" },
  { table: "eink_templates", nameMax: 200, what: "template" },
];

const indexName = (table: string): string => `${table}_name_key_unique`;

export async function up(knex: Knex): Promise<void> {
  for (const t of TABLES) {
    await knex.schema.alterTable(t.table, (c) => {
      c.string("name_key", NAME_KEY_MAX_LENGTH).nullable();
    });
    await fillKeys(knex, t);
    await knex.schema.alterTable(t.table, (c) => {
      c.unique(["name_key"], { indexName: indexName(t.table) });
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const t of TABLES) {
    await knex.schema.alterTable(t.table, (c) => {
      c.dropUnique(["name_key"], indexName(t.table));
    });
    // Native on both stores; knex's dropColumn would rebuild the SQLite table that sensors reference.
    await knex.raw(`alter table ${t.table} drop column name_key`);
  }
}

async function fillKeys(knex: Knex, { table, nameMax, what }: Named): Promise<void> {
  const rows: Array<{ id: number; name: string }> = await knex(table).select("id", "name").orderBy("id");
  const keeper = new Map<string, { id: number; name: string }>();
  for (const r of rows) if (!keeper.has(nameKey(r.name))) keeper.set(nameKey(r.name), r);
  const taken = new Set(keeper.keys());
  const now = new Date().toISOString();
  for (const r of rows) {
    const key = nameKey(r.name);
    const first = keeper.get(key)!;
    if (first === r) {
      await knex(table).where({ id: r.id }).update({ name_key: key });
      continue;
    }
    const name = freeName(r.name, nameMax, taken);
    taken.add(nameKey(name));
    await knex(table)
      .where({ id: r.id })
      .update({ name, name_key: nameKey(name), updated_at: now });
    console.warn(
      `careflow migration 012_name_keys: ${what} ${r.id} '${r.name}' is the same name as ${what} ${first.id} '${first.name}' ` +
        `apart from case or Unicode spelling; renamed to '${name}'`,
    );
  }
}

/** `name (2)`, `name (3)`, … : the first whose key no row has, cut to fit the name column. */
function freeName(name: string, max: number, taken: ReadonlySet<string>): string {
  const chars = Array.from(name);
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${chars
      .slice(0, max - suffix.length)
      .join("")
      .trimEnd()}${suffix}`;
    if (!taken.has(nameKey(candidate))) return candidate;
  }
}

/** The tags of every quiz not archived, for the delivery side's tag analytics. */
import type { Knex } from "knex";
import { fromJsonText } from "../../../../platform/db/json-column";

export async function quizTags(db: Knex): Promise<Array<{ id: number; tags: string[] }>> {
  const rows = (await db("quizzes").whereNot({ status: "archived" }).select("id", "tags")) as Array<{ id: number; tags: string }>;
  return rows.map((r) => ({ id: Number(r.id), tags: fromJsonText<string[]>(r.tags, []) }));
}

/** The tags of every document not archived, for the delivery side's tag analytics. */
import type { Knex } from "knex";
import { fromJsonText } from "../../../../platform/db/json-column";

export async function documentTags(db: Knex): Promise<Array<{ id: number; tags: string[] }>> {
  const rows = (await db("knowledge_documents").whereNot({ status: "archived" }).select("id", "tags")) as Array<{ id: number; tags: string }>;
  return rows.map((r) => ({ id: Number(r.id), tags: fromJsonText<string[]>(r.tags, []) }));
}

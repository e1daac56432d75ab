/**
 * A card's or quiz's `document_id` must name a document: the foreign key says so, and its
 * violation (SQLite or PostgreSQL) becomes a 422 naming the field instead of a 500.
 */
import { ValidationError } from "../../../../platform/core/errors";

const isForeignKeyViolation = (err: unknown): boolean => {
  const e = err as { code?: unknown; message?: unknown };
  return (
    e?.code === "23503" || e?.code === "SQLITE_CONSTRAINT_FOREIGNKEY" || (typeof e?.message === "string" && e.message.includes("FOREIGN KEY constraint failed"))
  );
};

export async function withDocumentRef<T>(documentId: number | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (documentId !== null && documentId !== undefined && isForeignKeyViolation(err))
      throw new ValidationError(`document_id: document ${documentId} not found`);
    throw err;
  }
}

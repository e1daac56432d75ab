/**
 * A document's life: `uploaded` (no text to search) → `chunked` (its text cut into chunks,
 * not yet searched) → `approved` (the family checked it: searched and answered from), and
 * `archived` (the caregiver's delete: kept, never searched) from any of them; `restore` brings
 * an archived document back to `chunked` (or `uploaded` without text), to be approved again.
 * A transition that is not allowed is a 409 saying what to do instead.
 */
import { ConflictError } from "../../../../platform/core/errors";
import type { DocumentRow, DocumentStatus } from "./documents.store";

export type DocumentAction = "approve" | "archive" | "restore" | "reembed" | "edit";

/** The status after a text (re)chunking: approved stays only when the text did not change. */
export const afterChunking = (chunks: number): DocumentStatus => (chunks > 0 ? "chunked" : "uploaded");

/** Throws the 409 when `action` is not allowed in the document's status. */
export function checkTransition(doc: Pick<DocumentRow, "id" | "status">, action: DocumentAction): void {
  const name = `Document ${doc.id}`;
  if (doc.status === "archived" && action !== "restore" && action !== "archive")
    throw new ConflictError(
      `${name} is archived: restore it before ${action === "edit" ? "changing it" : action === "reembed" ? "re-embedding it" : "approving it"}`,
    );
  switch (action) {
    case "approve":
      if (doc.status === "approved") throw new ConflictError(`${name} is already approved`);
      if (doc.status === "uploaded") throw new ConflictError(`${name} has no text to search yet (status uploaded): add source_text before approving it`);
      return;
    case "archive":
      if (doc.status === "archived") throw new ConflictError(`${name} is already archived`);
      return;
    case "restore":
      if (doc.status !== "archived") throw new ConflictError(`${name} is not archived (status ${doc.status}): only an archived document can be restored`);
      return;
    default:
      return;
  }
}

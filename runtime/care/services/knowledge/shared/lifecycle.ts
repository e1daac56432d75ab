/**
 * The lifecycle cards and quizzes share (the statuses of migration 022): `draft` or
 * `caregiver_review` → approve → `approved`; anything but `archived` → archive → `archived`;
 * `archived` → restore → `draft` (approved again deliberately, never silently).
 */
import { ConflictError } from "../../../../platform/core/errors";

export type LifecycleAction = "approve" | "archive" | "restore" | "edit";

export function checkLifecycle(what: string, status: string, action: LifecycleAction): void {
  if (action === "restore") {
    if (status !== "archived") throw new ConflictError(`${what} is ${status}, not archived: there is nothing to restore`);
    return;
  }
  if (status === "archived") throw new ConflictError(`${what} is archived; restore it first`);
  if (action === "approve" && status === "approved") throw new ConflictError(`${what} is already approved`);
}

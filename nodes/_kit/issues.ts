/**
 * How a zod issue reads: the field's path and what is wrong with it. One wording for node
 * configs (the editor, REST, import, deploy) and for the API's 422 bodies, which
 * `runtime/core/validation.ts` builds from this.
 */
import type { z } from "zod";

const pathText = (path: readonly PropertyKey[]): string => (path.length === 0 ? "body" : path.map((p) => String(p)).join("."));

export const describeIssue = (issue: z.core.$ZodIssue): string => {
  if (issue.code === "unrecognized_keys") {
    const where = issue.path.length ? `${pathText(issue.path)}.` : "";
    return issue.keys.map((k) => `${where}${k}: unknown field`).join("; ");
  }
  return `${pathText(issue.path)}: ${issue.message}`;
};

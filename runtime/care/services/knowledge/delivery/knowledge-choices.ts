/**
 * The editor's pickers of an `info_card` or `quiz_start` node: the approved cards or quizzes
 * as `{value, label}`. The lists are the repository's own endpoints (`GET /api/v1/info-cards
 * ?status=approved`, `GET /api/v1/quizzes?status=approved`, owned by cards/ and quizzes/),
 * asked on this server with an admin key, so the picker shows exactly what the API shows.
 */
import type { CareContext } from "../../../core/context";
import { NotFoundError, ServiceUnavailableError, ValidationError } from "../../../../platform/core/errors";

const LISTS: Readonly<Record<string, string>> = { info_card: "/api/v1/info-cards?status=approved", quiz: "/api/v1/quizzes?status=approved" };

export interface Choice {
  value: string;
  label: string;
}

export async function knowledgeChoices(ctx: CareContext, kind: unknown, port: number | undefined): Promise<Choice[]> {
  const list = typeof kind === "string" ? LISTS[kind] : undefined;
  if (!list) throw new ValidationError("kind: info_card or quiz");
  const admin = ctx.settings.auth.api_keys.find((k) => k.permissions.includes("admin"));
  if (!admin || !port) throw new ServiceUnavailableError("no admin key to read the approved list with");
  const res = await fetch(`http://127.0.0.1:${port}${list}`, { headers: { "x-api-key": admin.key }, signal: AbortSignal.timeout(5000) });
  if (res.status === 404) throw new NotFoundError(`${list} is not served by this version`);
  if (!res.ok) throw new ServiceUnavailableError(`${list} answered ${res.status}`);
  const body = (await res.json()) as unknown;
  const items = (Array.isArray(body) ? body : ((body as { items?: unknown[] } | null)?.items ?? [])) as Array<{ id?: unknown; title?: unknown }>;
  return items.filter((i) => typeof i.id === "number").map((i) => ({ value: String(i.id), label: `${String(i.title ?? "")} (#${String(i.id)})` }));
}

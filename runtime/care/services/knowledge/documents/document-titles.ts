/** Documents' titles by id, for the passages an answer cites. */
import type { PlatformContext } from "../../../../platform/context";
import { titlesByIds } from "./documents.store";

export const documentTitles = (ctx: Pick<PlatformContext, "db">, ids: readonly number[]): Promise<Map<number, string>> => titlesByIds(ctx.db, ids);

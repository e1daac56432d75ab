/** Tells the media sweep which objects the cards' slots still hold (originals and variants). */
import type { Knex } from "knex";
import { slotObjectsAmong } from "./cards.store";

export const cardMediaKeeper = (db: Knex, names: readonly string[]): Promise<Set<string>> => slotObjectsAmong(db, names);

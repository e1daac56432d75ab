/** Tells the media sweep which objects the questions' pictures still hold. */
import type { Knex } from "knex";
import { questionObjectsAmong } from "./quizzes.store";

export const quizMediaKeeper = (db: Knex, names: readonly string[]): Promise<Set<string>> => questionObjectsAmong(db, names);

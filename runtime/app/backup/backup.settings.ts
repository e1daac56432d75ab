/** The `backup` settings section: when backups are made and how many are kept (docs/backups.md). */
import { z } from "zod";
import { validate as cronValid } from "node-cron";

// Backups (docs/backups.md): one file per backup in `dir` (null: `backups/` in the data dir),
// made at `schedule` (cron in app.timezone; null: only by hand), the newest of each of the
// last `keep_daily` days and of each of the last `keep_weekly` weeks kept.
export const backupSettings = z
  .object({
    schedule: z
      .string()
      .refine((c) => cronValid(c), "a cron expression (minute hour day month weekday), e.g. '30 3 * * *'")
      .nullable()
      .default("30 3 * * *"),
    dir: z.string().min(1).nullable().default(null),
    keep_daily: z.number().int("a whole number").min(0).max(366).default(7),
    keep_weekly: z.number().int("a whole number").min(0).max(520).default(4),
    // A start that upgrades the store backs it up first (docs/upgrades.md); the last
    // `keep_before_upgrade` such backups are kept besides the daily and weekly ones.
    before_upgrade: z.boolean().default(true),
    keep_before_upgrade: z.number().int("a whole number").min(1).max(100).default(3),
  })
  .strict()
  .prefault({})
  .refine((b) => b.keep_daily + b.keep_weekly > 0, {
    message: "keep_daily and keep_weekly are both 0: every backup would be deleted as soon as it is made",
    path: ["keep_daily"],
  });

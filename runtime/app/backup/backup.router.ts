/**
 * `/api/v1/admin/backups` (docs/backups.md): make one now (POST), the list with the last
 * outcomes and the schedule (GET), and one file to download (GET …/{name}). Admin keys only: a
 * backup holds the whole household (ADMIN_ONLY_PATTERNS for the GETs; no other role is granted
 * the POST). `GET /api/v1/backup-status` is the state alone (no file, no dir), for caregivers too.
 */
import fs from "node:fs";
import { Router } from "express";
import { z } from "zod";
import { parseInput } from "../../platform/core/validation";
import { CareflowError, ServiceUnavailableError } from "../../platform/core/errors";
import type { AppContext } from "../context";
import { reply, route } from "../../platform/http/route";
import { backupState, backupStatus } from "./backup-status";
import { makeBackup } from "./backup.service";
import { backupPath } from "./backup-files";

export function backupsRouter(ctx: AppContext): Router {
  const r = Router();
  r.get(
    "/admin/backups",
    route(() => backupStatus(ctx)),
  );
  r.get(
    "/backup-status",
    route(() => backupState(ctx)),
  );
  r.post(
    "/admin/backups",
    route(async (req) => {
      // Nothing to choose: what a backup holds is fixed (docs/backups.md); a field sent is a mistake said back.
      parseInput(z.object({}).strict(), req.body ?? {}, "body");
      // A backup that failed (a full disk, pg_dump missing) is said as such, not as an internal error.
      const made = await makeBackup(ctx, "manual").catch((err: unknown) => {
        if (err instanceof CareflowError) throw err;
        throw new ServiceUnavailableError(`the backup failed: ${err instanceof Error ? err.message : String(err)}`);
      });
      return reply(201, made);
    }),
  );
  r.get(
    "/admin/backups/:name",
    route(async (req, res) => {
      const file = await backupPath(ctx, req.params.name);
      const size = (await fs.promises.stat(file)).size;
      res.status(200);
      res.setHeader("Content-Type", "application/octet-stream");
      res.setHeader("Content-Length", size);
      res.setHeader("Content-Disposition", `attachment; filename="${req.params.name}"`);
      await new Promise<void>((resolve, reject) => {
        const stream = fs.createReadStream(file);
        stream.on("error", reject);
        res.on("close", () => {
          stream.destroy();
          resolve();
        });
        stream.pipe(res);
      });
    }),
  );
  return r;
}

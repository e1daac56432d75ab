/**
 * Bundle routes: export as JSON or YAML (`?format=yaml` or an `Accept` naming YAML);
 * import from a JSON body or a YAML body (by content type).
 */
import express, { Router, type Request, type Response } from "express";
import YAML from "yaml";
import type { CareContext } from "../../context";
import { BadRequestError, ValidationError } from "../../../../platform/core/errors";
import { intParam } from "../../../../platform/http/params";
import { reply, route } from "../../../../platform/http/route";
import { commitImport, ImportRefused, previewImport } from "./bundle-import";
import { exportRule } from "./bundle-export";

const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

const wantsYaml = (req: Request): boolean =>
  req.query.format === "yaml" || (req.query.format === undefined && YAML_TYPES.some((t) => (req.get("accept") ?? "").includes(t)));

function bundleBody(req: Request): unknown {
  if (typeof req.body === "string") {
    try {
      return YAML.parse(req.body);
    } catch (err) {
      throw new ValidationError(`body: not valid YAML (${(err as Error).message})`);
    }
  }
  return req.body;
}

export function bundlesRouter(ctx: CareContext): Router {
  const r = Router();
  const yamlBody = express.text({ type: YAML_TYPES, limit: "5mb" });

  r.get(
    "/rules/:id/export",
    route(async (req: Request, res: Response) => {
      if (req.query.format !== undefined && req.query.format !== "json" && req.query.format !== "yaml") {
        throw new BadRequestError("format: use json or yaml");
      }
      const bundle = await exportRule(ctx, intParam(req, "id", "Rule"), req.principal?.name ?? "unknown");
      const slug =
        bundle.rule.name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .replace(/^-|-$/g, "") || "rule";
      if (wantsYaml(req)) {
        res.type("application/yaml").set("Content-Disposition", `attachment; filename="${slug}.yaml"`).send(YAML.stringify(bundle));
        return;
      }
      res.set("Content-Disposition", `attachment; filename="${slug}.json"`).json(bundle);
    }),
  );
  r.post(
    "/rules/import/preview",
    yamlBody,
    route((req) => previewImport(ctx, bundleBody(req))),
  );
  r.post(
    "/rules/import",
    yamlBody,
    route(async (req, res) => {
      try {
        return reply(201, await commitImport(ctx, bundleBody(req)));
      } catch (err) {
        if (err instanceof ImportRefused) {
          res.status(422).json({ detail: err.message, report: err.report });
          return;
        }
        throw err;
      }
    }),
  );
  return r;
}

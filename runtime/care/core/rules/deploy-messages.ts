/**
 * What the editor shows when a deploy is refused or passes with warnings: one readable line
 * per problem (rule, node, field, message, "did you mean"), never Node-RED's raw JSON.
 */
import type { NextFunction, Request, Response } from "express";
import { describeProblem, type TabProblem } from "./rule-tab-checks";

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const list = (lines: readonly string[]): string => `<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>`;

export const deployWarningsHtml = (warnings: readonly TabProblem[]): string =>
  `Deployed, with ${warnings.length === 1 ? "one thing" : `${warnings.length} things`} to look at:${list(warnings.map(describeProblem))}`;

/** Node-RED answers a refused deploy with `{"code","message"}`; the editor shows the body as HTML. */
export function readableDeployErrors(_req: Request, res: Response, next: NextFunction): void {
  const json = res.json.bind(res);
  res.json = (body: unknown) => {
    const message = res.statusCode >= 400 && body && typeof body === "object" ? (body as { message?: unknown }).message : undefined;
    if (typeof message !== "string" || !message.startsWith("Deploy refused: ")) return json(body);
    const lines = message.slice("Deploy refused: ".length).split("\n");
    const what = lines.every((l) => l.startsWith("the Devices tab")) ? "the Devices tab" : "a rule";
    return res.type("text/html").send(`This would break ${what}, so nothing was deployed:${list(lines)}`);
  };
  next();
}

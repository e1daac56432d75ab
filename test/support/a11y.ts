/**
 * An accessibility check of what a page shows, with axe-core (Deque's engine, the one browsers'
 * own audits use): its serious and critical violations, each as one line naming the rule, what
 * it asks for and where. Injected through the DevTools protocol, so a page's Content Security
 * Policy does not keep it out. Minor and moderate findings are not counted (issue 43 §4).
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";

/** Where to look: the whole page, or only these selectors (one page's part of a bigger UI). */
export interface A11yScope {
  include?: string[];
  exclude?: string[];
}

/** The page's global scope, as the check sees it (this file is compiled without the DOM's types). */
declare const window: { axe?: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } };

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

export async function seriousViolations(page: Page, scope: A11yScope = {}): Promise<string[]> {
  if (!(await page.evaluate(() => window.axe !== undefined))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async (s: A11yScope) => {
    const context = s.include
      ? { include: s.include.map((x) => [x]), exclude: (s.exclude ?? []).map((x) => [x]) }
      : { exclude: (s.exclude ?? []).map((x) => [x]) };
    const result = await window.axe!.run(context, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  }, scope);
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .slice(0, 4)
          .map((n) => n.target.join(" "))
          .join(" | ")}${v.nodes.length > 4 ? ` and ${v.nodes.length - 4} more` : ""}`,
    );
}

/** Fails naming every serious or critical violation of `what` (a page or a state of it). */
export async function assertAccessible(page: Page, what: string, scope: A11yScope = {}): Promise<void> {
  const found = await seriousViolations(page, scope);
  if (found.length) assert.fail(`${what}: ${found.length} serious or critical accessibility violation(s):\n${found.join("\n")}`);
}

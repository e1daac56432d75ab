/** The example rule bundles of `flows/examples/`, imported into the demo household on first start. */
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import type { AppContext } from "../context";
import { commitImport } from "../../care/core/rules/bundles/bundle-import";

export function exampleBundleFiles(): string[] {
  const candidates = [path.resolve(__dirname, "../../../../flows/examples"), path.resolve(__dirname, "../../../flows/examples")];
  const dir = candidates.find((d) => fs.existsSync(d));
  if (!dir) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.(ya?ml|json)$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

export const readBundleFile = (file: string): unknown => YAML.parse(fs.readFileSync(file, "utf8"));

export async function importExampleRules(ctx: AppContext): Promise<void> {
  for (const file of exampleBundleFiles()) {
    try {
      const report = await commitImport(ctx, readBundleFile(file));
      ctx.log.info({ rule: report.rule_name, rule_id: report.rule_id, warnings: report.warnings.length }, "example rule imported");
    } catch (err) {
      ctx.log.warn({ err, file }, "example rule not imported");
    }
  }
}

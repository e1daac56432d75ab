// `npm run mutation -- <group>`: StrykerJS on one group of stryker/modules.cjs (docs/mutation.md).
// Without a group it lists them; a whole-project run is never what anyone wants on two cores.
//
// Stryker is started through its API, not its CLI: StrykerJS 10's CLI refuses Node 20 (its
// engines say >= 22) while careflow supports 20.19; its API runs on Node 20 (docs/decisions.md).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const modules = require("./modules.cjs");
const name = process.argv[2];
if (!name || !modules[name]) {
  process.stderr.write(`usage: npm run mutation -- <group>\ngroups: ${Object.keys(modules).join(", ")}\n`);
  process.exit(name ? 2 : 0);
}
process.env.CAREFLOW_MUTATION_MODULE = name;
// mocha 12's CLI files for the mocha runner, here and in the test runner processes (mocha12-cli.cjs).
const shim = path.join(path.dirname(new URL(import.meta.url).pathname), "mocha12-cli.cjs");
require(shim);
process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --require ${shim}`.trim();
const core = path.dirname(require.resolve("@stryker-mutator/core/package.json"));
// The Stryker class's own module: the package's index also loads the CLI, whose first line is the version guard.
const { Stryker } = await import(pathToFileURL(path.join(core, "dist/src/stryker.js")).href);
const stryker = new Stryker({ configFile: "stryker/stryker.config.mjs" });
await stryker.runMutationTest();

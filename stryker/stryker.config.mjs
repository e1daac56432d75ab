// StrykerJS's configuration for one module group of stryker/modules.cjs (run.mjs names it in
// CAREFLOW_MUTATION_MODULE). docs/mutation.md has the scores and docs/decisions.md the choices.
import { createRequire } from "node:module";

const modules = createRequire(import.meta.url)("./modules.cjs");
const name = process.env.CAREFLOW_MUTATION_MODULE;
const group = modules[name];
if (!group) throw new Error(`CAREFLOW_MUTATION_MODULE must name a group of stryker/modules.cjs (${Object.keys(modules).join(", ")})`);

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  mutate: group.mutate,
  testRunner: "mocha",
  // The sandbox compiles the mutant schemata once: every mutant is in the build, switched on at run time.
  buildCommand: "npm run build",
  mochaOptions: {
    "no-config": true,
    spec: group.tests,
    require: ["dist/test/support/run-fixtures.js"],
  },
  // The tests that cover a mutant run for it, not the group's every test.
  coverageAnalysis: "perTest",
  // Module-level constants would need a fresh process per mutant: too slow on two shared cores.
  ignoreStatic: true,
  concurrency: 1,
  timeoutMS: 30_000,
  checkers: group.typeCheck ? ["typescript"] : [],
  tsconfigFile: "tsconfig.json",
  // The schemata's inserted code does not type-check: tsc skips the mutated files in the sandbox.
  disableTypeChecks: "{runtime,nodes}/**/*.ts",
  // The previous run's results are reused for every mutant whose code and tests did not change.
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // The sandbox builds from the sources (Stryker never copies a .tsbuildinfo, so a copied dist/
  // would not make tsc's build incremental); screenshots, local data and reports stay out.
  // Anchored: runtime/care/services/reports/ is source.
  ignorePatterns: ["/dist", "/test-output", "/data", "/reports"],
  cleanTempDir: "always",
};

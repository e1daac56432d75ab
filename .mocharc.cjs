// mocha's settings. The whole suite by default; `npx mocha dist/test/x.test.js` runs only the
// files named (mocha adds a config's `spec` to the files on the command line, so the default is
// left out when any is named). On PostgreSQL (CAREFLOW_TEST_DATABASE_URL) the default is the
// files that can reach the store (test/support/store-files.cjs): the rest never open a database.
const { allTestFiles, storeTestFiles } = require("./test/support/store-files.cjs");
const { machineSoloFirst, spreadBrowserFiles } = require("./test/support/file-order.cjs");
const valueOptions = new Set([
  "--require",
  "-r",
  "--reporter",
  "-R",
  "--file",
  "--ignore",
  "--grep",
  "-g",
  "--fgrep",
  "-f",
  "--config",
  "--jobs",
  "-j",
  "--timeout",
  "-t",
]);
const named = process.argv.slice(2).some((arg, i, all) => !arg.startsWith("-") && arg.endsWith(".js") && !valueOptions.has(all[i - 1]));

module.exports = {
  spec: named ? [] : machineSoloFirst(spreadBrowserFiles(process.env.CAREFLOW_TEST_DATABASE_URL ? storeTestFiles("dist/test") : allTestFiles("dist/test"))),
  require: ["dist/test/support/run-fixtures.js"],
  reporter: "dist/test/support/summary-reporter.js",
  parallel: true,
  jobs: 2,
  timeout: 20000,
  exit: false,
  recursive: true,
};

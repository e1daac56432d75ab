// @stryker-mutator/mocha-runner 10.0.0 reaches into mocha's CLI with extensionless requires
// (`mocha/lib/cli/run-helpers`, `options`, `collect-files`), which mocha 12 renamed to `.cjs`:
// the plugin fails to load (stryker-js PR #6205, open). Until a runner release has that fix,
// a request for one of those files that does not resolve is retried with `.cjs`. Loaded by
// stryker/run.mjs and, through NODE_OPTIONS, by Stryker's test runner processes.
const Module = require("node:module");

const resolve = Module._resolveFilename;
const mochaCli = /[\\/]mocha[\\/]lib[\\/]cli[\\/][\w-]+$/;
Module._resolveFilename = function (request, ...rest) {
  try {
    return resolve.call(this, request, ...rest);
  } catch (err) {
    if (!mochaCli.test(request)) throw err;
    return resolve.call(this, `${request}.cjs`, ...rest);
  }
};

// The order mocha's parallel workers take the test files in. The browser files (the slowest,
// each an app, Node-RED and Chromium, test/support/browser-slots.ts lets only a few run at once)
// are spread over the first part of the list instead of coming first together (they sort first,
// under dist/test/browser): a worker then seldom waits for a browser slot while other files are
// left, and the last browser file does not start near the end of the run.
const path = require("node:path");

const isBrowser = (f) => f.split(path.sep).includes("browser") || f.split("/").includes("browser");

/** `files` with the browser files spread evenly over the first 60 % of the list. */
function spreadBrowserFiles(files) {
  const browser = files.filter(isBrowser);
  const others = files.filter((f) => !isBrowser(f));
  if (browser.length === 0) return [...files];
  const span = Math.max(browser.length, Math.round(files.length * 0.6));
  const out = [];
  let b = 0;
  for (let i = 0; out.length < files.length; i++) {
    const due = b < browser.length && i >= Math.round((b * span) / browser.length);
    if (due) out.push(browser[b++]);
    else if (others.length) out.push(others.shift());
    else out.push(browser[b++]);
  }
  return out;
}

const fs = require("node:fs");

/**
 * Files that ask for the machine alone (test/support/machine-solo.ts) go first: the files under
 * way when one asks are waited for, and at the start of a run they are the fewest.
 */
function machineSoloFirst(files) {
  const wants = (f) => fs.readFileSync(f, "utf8").includes("haveTheMachineAlone");
  return [...files.filter(wants), ...files.filter((f) => !wants(f))];
}

module.exports = { spreadBrowserFiles, machineSoloFirst };

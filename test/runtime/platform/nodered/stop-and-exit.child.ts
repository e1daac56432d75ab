/**
 * The child process of node-red-stop.test: the app with Node-RED started and then stopped as
 * main.ts stops it (the app closed, then Node-RED), without `process.exit`: what is left
 * running decides whether the process ends.
 */
import { nodeRedHost } from "../../../../runtime/platform/nodered/host";
import { startTestApp } from "../../../support/test-app";

void (async () => {
  const t = await startTestApp({ nodeRed: true });
  await t.close();
  await nodeRedHost.shutdown();
  process.stdout.write("stopped\n");
})();

/**
 * The child process of node-red-stop.test: the app with Node-RED, the hub (the fake hub) and
 * tracking (the machine's NATS broker, when it answers) connected, then stopped as main.ts stops
 * it (the app closed, then Node-RED), without `process.exit`: what is left running decides
 * whether the process ends.
 */
import { nodeRedHost } from "../../../../runtime/platform/nodered/host";
import { startFakeHub } from "../../../fakes/hub-server";
import { deleteStreams, NATS_URL, portOpen, uniquePrefix } from "../../../support/nats";
import { startTestApp } from "../../../support/test-app";

const until = async (what: string, ok: () => boolean): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

void (async () => {
  const hub = await startFakeHub();
  const nats = await portOpen(NATS_URL);
  const prefix = uniquePrefix("stop");
  const t = await startTestApp({
    nodeRed: true,
    settings: {
      hub: { url: hub.url, token: hub.token },
      ...(nats ? { cts: { enabled: true, nats_url: NATS_URL, stream_prefix: prefix } } : {}),
    },
  });
  await until("connected to the hub", () => t.app.ctx.hub?.client?.connected === true);
  if (nats) await until("connected to NATS", () => t.app.cts.health().state === "connected");
  await t.close();
  await nodeRedHost.shutdown();
  await hub.close();
  if (nats) await deleteStreams(NATS_URL, prefix);
  process.stdout.write(`stopped${nats ? " (with tracking)" : ""}\n`);
})();

import pino from "pino";
import { createTtsApp } from "./app";
import { loadConfig } from "./config";

/** Entry point of `npm run tts`: configuration from the environment, then listen. */
async function main(): Promise<void> {
  const log = pino({ name: "tts" });
  const config = loadConfig();
  const tts = await createTtsApp(config, {
    logError: (err) => log.error({ err }, "request failed"),
    logWarning: (message) => log.warn(message),
  });
  tts.server.listen(config.port, config.host, () => {
    const address = tts.server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const host = typeof address === "object" && address ? address.address : config.host;
    log.info(
      { host, port, auth: config.apiKey ? "key" : "none", engines: tts.engines.list().map((e) => e.id), default_engine: tts.engines.defaultEngine?.id },
      "tts listening",
    );
  });
  const stop = () => {
    log.info("tts stopping");
    tts.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});

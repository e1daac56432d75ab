import http from "node:http";
import express from "express";
import type { TtsConfig } from "./config";
import type { SpeechEngine } from "./engines/engine";
import { EspeakEngine } from "./engines/espeak/espeak-engine";
import { EngineRegistry } from "./engines/registry";
import { RemoteEngine } from "./engines/remote-engine";
import { errorHandler } from "./errors";
import { reachableFromNetwork, requireApiKey } from "./routes/auth";
import { healthRoutes } from "./routes/health.routes";
import { modelsRoutes } from "./routes/models.routes";
import { speechRoutes } from "./routes/speech.routes";
import { voicesRoutes } from "./routes/voices.routes";
import { SpeechService } from "./speech/speech-service";
import { VoiceStore } from "./voices/voice-store";
import { espeakVoices } from "./engines/espeak/espeak-voices";

export interface TtsAppOptions {
  /** Where unexpected errors go; defaults to stderr. */
  logError?: (err: unknown) => void;
  /** Where the one start-up warning goes (listening on the network without a key); defaults to stderr. */
  logWarning?: (message: string) => void;
  now?: () => Date;
}

export interface TtsApp {
  server: http.Server;
  engines: EngineRegistry;
  /** Stops engines and worker threads; closes the server if it is listening. */
  close(): Promise<void>;
}

/**
 * Builds the service without listening, so tests and benchmarks pick their own port. Resolves
 * once the local engine's workers are warm, so the first request is as fast as any other.
 */
export async function createTtsApp(config: TtsConfig, options: TtsAppOptions = {}): Promise<TtsApp> {
  const logError = options.logError ?? ((err: unknown) => console.error(err));
  const logWarning = options.logWarning ?? ((message: string) => console.warn(message));
  const store = await VoiceStore.open(config.dataDir);
  const engines = new EngineRegistry(await startEngines(config, store), config.defaultModel, "espeak");
  const speech = new SpeechService(engines, store);
  const defaultLanguage = espeakVoices().find((v) => v.id === config.defaultVoice)?.language ?? "en-us";

  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(engines, store));
  // Asks the server where it actually listens, so the guard holds however `listen` was called.
  app.use(requireApiKey(config.apiKey, () => server.address()));
  app.use(speechRoutes(speech));
  app.use(modelsRoutes(engines));
  app.use(
    voicesRoutes({
      engines,
      store,
      defaultLanguage,
      now: options.now ?? (() => new Date()),
      onRemoved: (id) => {
        const cloning = engines.get("cloning");
        if (cloning instanceof RemoteEngine) cloning.forget(id);
      },
    }),
  );
  app.use((req, res) => res.status(404).json({ detail: `not found: ${req.method} ${req.path}` }));
  app.use(errorHandler(logError));

  // Nagle's algorithm would hold back the first small PCM chunk of a stream.
  const server = http.createServer({ noDelay: true }, app);
  server.once("listening", () => {
    const address = server.address();
    if (config.apiKey || !reachableFromNetwork(address)) return;
    const where = typeof address === "object" && address ? `${address.address} port ${address.port}` : "a network address";
    logWarning(
      `TTS_API_KEY is not set and the service listens on ${where}, reachable from the network: ` +
        "speech and voice upload and delete are refused (403) until TTS_API_KEY is set; " +
        "TTS_HOST=127.0.0.1 listens on this machine only",
    );
  });
  return {
    server,
    engines,
    async close() {
      if (server.listening) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      await engines.close();
    },
  };
}

async function startEngines(config: TtsConfig, store: VoiceStore): Promise<SpeechEngine[]> {
  const remote = config.backends.map((backend) => new RemoteEngine(backend, config.remoteTimeoutMs, backend.engine === "cloning" ? store : undefined));
  const local = await EspeakEngine.start({ workers: config.espeakWorkers, defaultVoice: config.defaultVoice });
  return [local, ...remote];
}

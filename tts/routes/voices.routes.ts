import { Router, type RequestHandler } from "express";
import multer from "multer";
import type { EngineRegistry } from "../engines/registry";
import { ConflictError, NotFoundError, ValidationError } from "../errors";
import { checkReferenceSample } from "../voices/reference-sample";
import { listVoices } from "../voices/voice-catalog";
import { asyncRoute } from "./async-route";
import { VOICE_ID_PATTERN, type VoiceStore } from "../voices/voice-store";

/** 30 s of 48 kHz stereo 32-bit WAV is 11.5 MB; anything much larger is not a valid sample. */
const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

export interface VoiceRouteDeps {
  engines: EngineRegistry;
  store: VoiceStore;
  defaultLanguage: string;
  now: () => Date;
  /** Told when a custom voice goes, so a cloning backend's copy is re-sent if it comes back. */
  onRemoved(voiceId: string): void;
}

export function voicesRoutes(deps: VoiceRouteDeps): Router {
  const router = Router();

  router.get("/api/v1/voices", (_req, res) => {
    const voices = listVoices(deps.engines, deps.store);
    res.json({ voices, total: voices.length });
  });

  router.post(
    "/api/v1/voices/upload",
    uploadForm(),
    asyncRoute(async (req, res) => {
      const fields = (req.body ?? {}) as Record<string, unknown>;
      if (Object.keys(fields).length === 0 && !req.file) throw emptyForm();
      const voiceId = text(fields.voice_id);
      if (!voiceId) throw new ValidationError("voice_id", "required");
      if (!VOICE_ID_PATTERN.test(voiceId)) {
        throw new ValidationError("voice_id", "use 1-64 letters, digits, dots, dashes or underscores");
      }
      if (!req.file) throw new ValidationError("file", "required: a WAV reference sample of 10-30 s");
      if (deps.store.get(voiceId) || listVoices(deps.engines, deps.store).some((v) => v.id === voiceId)) {
        throw new ConflictError(`voice_id: '${voiceId}' already exists`);
      }
      const sample = checkReferenceSample(req.file.buffer);
      const voice = {
        voice_id: voiceId,
        name: text(fields.name) || voiceId,
        language: text(fields.language) || deps.defaultLanguage,
        description: text(fields.description),
        duration_seconds: Math.round(sample.durationSeconds * 100) / 100,
        sample_rate: sample.sampleRate,
        created_at: deps.now().toISOString(),
      };
      await deps.store.add(voice, req.file.buffer);
      res.status(201).json({ voice_id: voice.voice_id, name: voice.name, language: voice.language, status: "uploaded" });
    }),
  );

  router.delete(
    "/api/v1/voices/:id",
    asyncRoute(async (req, res) => {
      const id = req.params.id;
      if (!deps.store.get(id)) {
        const builtIn = listVoices(deps.engines, deps.store).some((v) => v.id === id);
        if (builtIn) throw new ConflictError(`voice '${id}' is built in and cannot be deleted`);
        throw new NotFoundError(`voice '${id}' not found`);
      }
      await deps.store.remove(id);
      deps.onRemoved(id);
      res.json({ voice_id: id, status: "deleted" });
    }),
  );

  return router;
}

/**
 * Reads the upload form: `multipart/form-data`, text fields and at most one file, `file`. Whatever
 * else arrives is a 422 saying what is wrong (a file over 16 MB is 413), never a 500: another
 * Content-Type, no boundary, an empty or cut-off body.
 */
function uploadForm(): RequestHandler {
  const parse = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } }).single("file");
  return (req, res, next) => {
    const type = req.get("content-type") ?? "";
    if (!/^multipart\/form-data\s*(;|$)/i.test(type)) {
      next(
        new ValidationError("body", `send multipart/form-data with the fields voice_id and file (got ${type ? `'${type.slice(0, 100)}'` : "no Content-Type"})`),
      );
      return;
    }
    parse(req, res, (err: unknown) => {
      // multer's own errors name their field; errors.ts maps them (413 for the size limit).
      if (!err || err instanceof multer.MulterError) return next(err);
      const message = err instanceof Error ? err.message : String(err);
      const nothingRead = Object.keys(req.body ?? {}).length === 0 && !req.file;
      if (message === "Unexpected end of form" && nothingRead) return next(emptyForm());
      next(new ValidationError("body", `not a readable multipart form (${message})`));
    });
  };
}

/** A body with no parts: empty, only the closing boundary, or cut off before the first part ended. */
function emptyForm(): ValidationError {
  return new ValidationError("voice_id", "required; the form has no fields: send voice_id and file (a 10-30 s WAV) as multipart/form-data");
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

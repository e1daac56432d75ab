import { Router } from 'express';
import multer from 'multer';
import type { EngineRegistry } from '../engines/registry';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { checkReferenceSample } from '../voices/reference-sample';
import { listVoices } from '../voices/voice-catalog';
import { asyncRoute } from './async-route';
import { VOICE_ID_PATTERN, type VoiceStore } from '../voices/voice-store';

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
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: MAX_UPLOAD_BYTES, files: 1 } });

  router.get('/api/v1/voices', (_req, res) => {
    const voices = listVoices(deps.engines, deps.store);
    res.json({ voices, total: voices.length });
  });

  router.post('/api/v1/voices/upload', upload.single('file'), asyncRoute(async (req, res) => {
    const fields = req.body as Record<string, unknown>;
    const voiceId = text(fields.voice_id);
    if (!voiceId) throw new ValidationError('voice_id', 'required');
    if (!VOICE_ID_PATTERN.test(voiceId)) {
      throw new ValidationError('voice_id', 'use 1-64 letters, digits, dots, dashes or underscores');
    }
    if (!req.file) throw new ValidationError('file', 'required: a WAV reference sample of 10-30 s');
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
    res.status(201).json({ voice_id: voice.voice_id, name: voice.name, language: voice.language, status: 'uploaded' });
  }));

  router.delete('/api/v1/voices/:id', asyncRoute(async (req, res) => {
    const id = req.params.id;
    if (!deps.store.get(id)) {
      const builtIn = listVoices(deps.engines, deps.store).some((v) => v.id === id);
      if (builtIn) throw new ConflictError(`voice '${id}' is built in and cannot be deleted`);
      throw new NotFoundError(`voice '${id}' not found`);
    }
    await deps.store.remove(id);
    deps.onRemoved(id);
    res.json({ voice_id: id, status: 'deleted' });
  }));

  return router;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

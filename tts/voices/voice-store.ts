import { promises as fs } from "node:fs";
import path from "node:path";

/** A household's own voice: a reference sample kept for a cloning engine. */
export interface CustomVoice {
  voice_id: string;
  name: string;
  language: string;
  description: string;
  duration_seconds: number;
  sample_rate: number;
  created_at: string;
}

/** Also a safe folder name: no separators, no leading dot. */
export const VOICE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const META_FILE = "voice.json";
const SAMPLE_FILE = "sample.wav";

/**
 * Custom voices on disk, one folder per voice under `<data dir>/voices/`, holding the sample as
 * uploaded and its metadata. The folder is the record: nothing else to keep in step.
 */
export class VoiceStore {
  private readonly voices = new Map<string, CustomVoice>();

  private constructor(private readonly root: string) {}

  static async open(dataDir: string): Promise<VoiceStore> {
    const store = new VoiceStore(path.join(dataDir, "voices"));
    await fs.mkdir(store.root, { recursive: true });
    for (const entry of await fs.readdir(store.root, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      try {
        const meta = JSON.parse(await fs.readFile(path.join(store.root, entry.name, META_FILE), "utf8")) as CustomVoice;
        store.voices.set(meta.voice_id, meta);
      } catch {
        // A folder without readable metadata is a half-finished upload from a crash: ignore it.
      }
    }
    return store;
  }

  list(): CustomVoice[] {
    return [...this.voices.values()].sort((a, b) => a.voice_id.localeCompare(b.voice_id));
  }

  get(voiceId: string): CustomVoice | undefined {
    return this.voices.get(voiceId);
  }

  get count(): number {
    return this.voices.size;
  }

  readSample(voiceId: string): Promise<Buffer> {
    return fs.readFile(path.join(this.root, voiceId, SAMPLE_FILE));
  }

  /** Written to a temporary folder and renamed, so a crash never leaves a voice without a sample. */
  async add(voice: CustomVoice, sample: Buffer): Promise<void> {
    if (!VOICE_ID_PATTERN.test(voice.voice_id)) throw new Error(`unsafe voice id '${voice.voice_id}'`);
    const staging = path.join(this.root, `.upload-${voice.voice_id}-${process.pid}-${Date.now()}`);
    await fs.mkdir(staging, { recursive: true });
    await fs.writeFile(path.join(staging, SAMPLE_FILE), sample);
    await fs.writeFile(path.join(staging, META_FILE), JSON.stringify(voice, null, 2));
    await fs.rename(staging, path.join(this.root, voice.voice_id));
    this.voices.set(voice.voice_id, voice);
  }

  async remove(voiceId: string): Promise<boolean> {
    if (!this.voices.delete(voiceId)) return false;
    await fs.rm(path.join(this.root, voiceId), { recursive: true, force: true });
    return true;
  }
}

import { ValidationError } from "../../errors";
import type { ResolvedVoice, Voice } from "../engine";
import { PCM_SAMPLE_RATE } from "../../audio/pcm";

/**
 * English, German (careflow's catalogs speak it, issue 49) and the Indian languages eSpeak NG
 * ships; each is the name of a language file in eSpeak NG's data (`espeak-ng --voices=de`: `de`). Of the spec's 22 scheduled languages, Bodo,
 * Dogri, Kashmiri, Maithili, Manipuri (Meitei), Sanskrit and Santali have no eSpeak voice;
 * Bishnupriya Manipuri is included as the closest.
 */
export const ESPEAK_LANGUAGES: readonly { code: string; espeak: string; name: string }[] = [
  { code: "en-us", espeak: "en-us", name: "English (US)" },
  { code: "en-gb", espeak: "en", name: "English (UK)" },
  { code: "de", espeak: "de", name: "German" },
  { code: "as", espeak: "as", name: "Assamese" },
  { code: "bn", espeak: "bn", name: "Bengali" },
  { code: "bpy", espeak: "bpy", name: "Bishnupriya Manipuri" },
  { code: "gu", espeak: "gu", name: "Gujarati" },
  { code: "hi", espeak: "hi", name: "Hindi" },
  { code: "kn", espeak: "kn", name: "Kannada" },
  { code: "kok", espeak: "kok", name: "Konkani" },
  { code: "ml", espeak: "ml", name: "Malayalam" },
  { code: "mr", espeak: "mr", name: "Marathi" },
  { code: "ne", espeak: "ne", name: "Nepali" },
  { code: "or", espeak: "or", name: "Odia" },
  { code: "pa", espeak: "pa", name: "Punjabi" },
  { code: "sd", espeak: "sd", name: "Sindhi" },
  { code: "ta", espeak: "ta", name: "Tamil" },
  { code: "te", espeak: "te", name: "Telugu" },
  { code: "ur", espeak: "ur", name: "Urdu" },
];

/** eSpeak's default voice is male; `+f3` is its clearest female variant. */
const GENDERS = [
  { suffix: "female", variant: "+f3" },
  { suffix: "male", variant: "" },
] as const;
type Gender = (typeof GENDERS)[number]["suffix"];

const DEFAULT_GENDER: Gender = "female";

interface EspeakVoice extends Voice {
  /** The name eSpeak's set_voice understands, e.g. `hi+f3`. */
  espeakName: string;
  gender: Gender;
}

const VOICES: EspeakVoice[] = ESPEAK_LANGUAGES.flatMap((lang) =>
  GENDERS.map((g) => ({
    id: `${lang.code}-${g.suffix}`,
    name: `${lang.name} (${g.suffix})`,
    engine: "espeak" as const,
    language: lang.code,
    supports_cloning: false,
    sample_rate: PCM_SAMPLE_RATE,
    is_default: false,
    espeakName: `${lang.espeak}${g.variant}`,
    gender: g.suffix,
  })),
);
const BY_ID = new Map(VOICES.map((v) => [v.id, v]));

export function espeakVoices(): Voice[] {
  return VOICES.map(({ espeakName: _name, gender: _gender, ...voice }) => voice);
}

export function isEspeakVoice(id: string): boolean {
  return BY_ID.has(id);
}

/** The default voice for a language tag, for configuration (`TTS_DEFAULT_LANGUAGE`). */
export function defaultEspeakVoiceFor(language: string): string | undefined {
  const code = normaliseLanguage(language);
  return code === undefined ? undefined : `${code}-${DEFAULT_GENDER}`;
}

export function espeakNameOf(voiceId: string): string {
  const voice = BY_ID.get(voiceId);
  if (!voice) throw new ValidationError("voice", `unknown voice '${voiceId}' for engine espeak`);
  return voice.espeakName;
}

/**
 * `language` accepts BCP 47 tags as callers send them ("hi-IN", "en", "EN_us"): English goes to
 * the nearest eSpeak accent, other tags to their primary language.
 */
export function normaliseLanguage(tag: string): string | undefined {
  const lower = tag.trim().toLowerCase().replace(/_/g, "-");
  const known = (code: string) => ESPEAK_LANGUAGES.some((l) => l.code === code);
  if (known(lower)) return lower;
  const primary = lower.split("-")[0];
  if (primary === "en") return lower === "en-gb" || lower === "en-uk" ? "en-gb" : "en-us";
  if (primary === "od" || primary === "ory") return "or";
  return known(primary) ? primary : undefined;
}

/**
 * Voice picks the speaker, language picks the language: when they differ, the voice's gender is
 * kept in the requested language, so a household's default voice still reads a Hindi reminder in
 * Hindi. Without a voice, the default voice's gender is used.
 */
export function resolveEspeakVoice(voiceId: string | undefined, language: string | undefined, defaultVoiceId: string): ResolvedVoice {
  const voice = voiceId === undefined ? undefined : BY_ID.get(voiceId);
  if (voiceId !== undefined && !voice) {
    throw new ValidationError("voice", `unknown voice '${voiceId}' for engine espeak; see GET /api/v1/voices`);
  }
  const wanted = language === undefined ? undefined : normaliseLanguage(language);
  if (language !== undefined && !wanted) {
    const codes = ESPEAK_LANGUAGES.map((l) => l.code).join(", ");
    throw new ValidationError("language", `'${language}' is not supported by espeak; supported: ${codes}`);
  }
  const base = voice ?? BY_ID.get(defaultVoiceId) ?? VOICES[0];
  const targetLanguage = wanted ?? base.language;
  const chosen = VOICES.find((v) => v.language === targetLanguage && v.gender === base.gender) ?? base;
  return { id: chosen.id, language: chosen.language };
}

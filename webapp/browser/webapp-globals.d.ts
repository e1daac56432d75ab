/** What the web app's page script (app.ts) offers the card and quiz script (knowledge.ts) and the voice companion (voice.ts). */
interface CareflowAppFrame {
  type: string;
  [k: string]: unknown;
}

/** A card or a quiz in the app's one-thing-at-a-time queue: it draws itself on its screen. */
interface CareflowExtraItem {
  id: string;
  screen: "card" | "quiz";
  show(): void;
}

interface CareflowApp {
  onFrame(type: string, fn: (f: CareflowAppFrame) => void): void;
  enqueue(item: CareflowExtraItem): void;
  redraw(id: string): void;
  finish(id: string): void;
  isShowing(id: string): boolean;
  /** Sent now, or kept and sent when the connection is back (an answer must not be lost). */
  send(frame: CareflowAppFrame): void;
  /** Sent only if the connection is open now (live audio): false when it was not sent. */
  sendLive(frame: CareflowAppFrame): boolean;
  /** Called at every change of the connection's state (connecting, connected, disconnected, unconfigured). */
  onState(fn: (state: string) => void): void;
  /** The page's audio context; null in a browser without Web Audio. */
  audio: AudioContext | null;
  /** Plays int16 LE mono PCM right after `after` (or at once): back to back with what is queued. */
  schedulePcm(ctx: AudioContext, data: ArrayBuffer, rate: number, after: number): { src: AudioBufferSourceNode; end: number } | null;
  report: { shown: string[]; [k: string]: unknown };
  /** A fixed word of the app in the senior's language (the catalog's key, i18next's options: `count` for plurals). */
  t(key: string, options?: Record<string, unknown>): string;
  /** Called when her language changes (the words on screen are drawn again). */
  onLanguage(fn: () => void): void;
}

/** The part of i18next's browser build (`/app/i18next.js`) the app uses. */
interface CareflowI18n {
  init(options: Record<string, unknown>): unknown;
  t(key: string, options?: Record<string, unknown>): string;
  exists(key: string, options?: Record<string, unknown>): boolean;
  getResource(lng: string, ns: string, key: string): unknown;
  addResourceBundle(lng: string, ns: string, resources: Record<string, unknown>, deep?: boolean, overwrite?: boolean): unknown;
  changeLanguage(lng: string): unknown;
}
declare const i18next: { createInstance(): CareflowI18n } | undefined;

/**
 * The senior's web app (`/app`): one plain script, no framework. It keeps the key it was set
 * up with (the link's `#key=` fragment, then localStorage), holds one WebSocket to `/ws` (the
 * key as the subprotocol) and shows one thing at a time: the time and the day when idle, a
 * popup, or a prompt with two big buttons and its countdown. It plays a soft chime before a
 * popup or a prompt, and speech the server sends (PCM frames or a clip's URL) with Web Audio.
 * Reconnects after 3 s, doubling to 30 s. `window.careflowWebApp` reports its state to tests.
 * OK on an alert's popup puts it away on this screen (`popup_dismiss`): the server remembers it
 * per tablet (its own id, made once and kept), so neither a reconnect nor a re-send brings it back.
 * Every fixed word comes from the message catalog of the senior's language (i18next, from
 * `/app/i18next.js`): English (`/app/messages.en.json`) until the server's welcome names hers
 * and carries its words, which are kept so a reload without the server speaks it too. Dates
 * and times are written by Intl in her language, in the household's time zone.
 */
(() => {
  type Frame = { type: string; [k: string]: unknown };
  type State = "connecting" | "connected" | "disconnected" | "unconfigured";
  interface Popup {
    kind: "popup";
    level: string;
    message: string;
    room: string | null;
    image_url: string | null;
    /** The alert the popup belongs to: what OK puts away. */
    alert_id: number | null;
    at: number;
  }
  interface Prompt {
    kind: "prompt";
    execution_id: number;
    step_id: number;
    title: string;
    message: string;
    dismiss: string;
    escalate: string;
    deadline: number;
    expires_at: string;
    answered: string | null;
  }
  /** A card or a quiz (knowledge.ts): it draws itself on its own screen and says when it is done. */
  interface Extra {
    kind: "extra";
    id: string;
    screen: "card" | "quiz";
    show(): void;
  }
  type Item = Popup | Prompt | Extra;

  const KEY_STORE = "careflow.webapp.key";
  const TZ_STORE = "careflow.webapp.timezone";
  const TABLET_STORE = "careflow.webapp.tablet";
  /** Popups put away while the server had not yet confirmed it (sent again on connecting). */
  const PUT_AWAY_STORE = "careflow.webapp.put-away";
  const FIRST_DELAY_MS = 3000;
  const MAX_DELAY_MS = 30000;
  const CHIME_LEAD_MS = 700;
  const LANGUAGE_STORE = "careflow.webapp.language";

  const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`#${id} is missing from the page`);
    return el as T;
  };

  // The key: from the set-up link once, then from storage; never shown.
  const fromLink = /(?:^#|&)key=([^&]+)/.exec(location.hash);
  if (fromLink) {
    localStorage.setItem(KEY_STORE, decodeURIComponent(fromLink[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  const key = localStorage.getItem(KEY_STORE);
  let timeZone = localStorage.getItem(TZ_STORE) ?? undefined;

  // This screen's own id, so two tablets sharing a key keep their own put-away popups. Made
  // with getRandomValues: randomUUID needs a secure context, and a tablet on http:// has none.
  const tablet =
    localStorage.getItem(TABLET_STORE) ??
    (() => {
      const id = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
      localStorage.setItem(TABLET_STORE, id);
      return id;
    })();
  const readPutAway = (): number[] => {
    try {
      const ids = JSON.parse(localStorage.getItem(PUT_AWAY_STORE) ?? "[]") as unknown;
      return Array.isArray(ids) ? ids.filter((n): n is number => Number.isInteger(n) && n > 0) : [];
    } catch {
      return [];
    }
  };
  // Alerts whose popups were put away here: not shown again, whatever arrives.
  const putAway = new Set<number>(readPutAway());

  const report = {
    state: "connecting" as State,
    connects: 0,
    chimes: 0,
    shown: [] as string[],
    audio: { streams: 0, ended: 0, frames: 0, bytes: 0, clips: 0, playing: false },
    answers: [] as Array<{ execution_id: number; step_id: number; action: string }>,
    dismissed: [] as number[],
    get queued(): number {
      return queue.length;
    },
  };
  (window as unknown as { careflowWebApp: typeof report }).careflowWebApp = report;

  // ---- her language -------------------------------------------------------------------------

  const i18n: CareflowI18n | null = typeof i18next === "undefined" ? null : i18next.createInstance();
  void i18n?.init({ lng: "en", fallbackLng: "en", resources: {}, initAsync: false, interpolation: { escapeValue: false }, returnNull: false });
  let language = "en";
  const languageListeners: Array<() => void> = [];
  const t = (key: string, options?: Record<string, unknown>): string => (i18n ? i18n.t(key, options) : key);
  /** A word the server sent that is the spec's English default (a prompt's title, its buttons) reads as the catalog's word in her language. */
  const own = (text: string, key: string): string => (text === "" || text === i18n?.getResource("en", "translation", key) ? t(key) : text);

  function useLanguage(tag: string, messages: Record<string, unknown>): void {
    if (!i18n) return;
    i18n.addResourceBundle(tag, "translation", messages, true, true);
    void i18n.changeLanguage(tag);
    language = tag;
    document.documentElement.lang = tag;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("[data-i18n]"))) el.textContent = t(el.dataset.i18n ?? "");
    $("status-text").textContent = t(`status.${report.state}`);
    drawRetry();
    tick();
    if (current && current.kind !== "extra") redrawWords(current);
    else if (current) reveal(current);
    for (const fn of languageListeners) fn();
  }

  /** English from the app's own copy, then the language last heard from the server (a reload offline keeps it). */
  async function loadLanguage(): Promise<void> {
    try {
      const res = await fetch("/app/messages.en.json");
      if (res.ok) useLanguage("en", (await res.json()) as Record<string, unknown>);
    } catch {
      // offline and never cached: the page's own English words stay
    }
    try {
      const kept = JSON.parse(localStorage.getItem(LANGUAGE_STORE) ?? "null") as { language?: unknown; messages?: unknown } | null;
      if (kept && typeof kept.language === "string" && kept.messages && typeof kept.messages === "object")
        useLanguage(kept.language, kept.messages as Record<string, unknown>);
    } catch {
      localStorage.removeItem(LANGUAGE_STORE);
    }
  }

  /** The server named her language (welcome, or a change): its words now, and kept for the next start. */
  function heardLanguage(f: Frame): void {
    if (typeof f.language !== "string" || !f.messages || typeof f.messages !== "object") return;
    localStorage.setItem(LANGUAGE_STORE, JSON.stringify({ language: f.language, messages: f.messages }));
    useLanguage(f.language, f.messages as Record<string, unknown>);
  }

  // ---- the screens ----------------------------------------------------------------------

  const screens = { idle: $("idle"), popup: $("popup"), prompt: $("prompt"), card: $("card"), quiz: $("quiz"), setup: $("setup") };
  function showScreen(name: keyof typeof screens): void {
    for (const [n, el] of Object.entries(screens)) el.hidden = n !== name;
    document.body.dataset.screen = name;
  }

  function tick(): void {
    const now = new Date();
    const fmt = (o: Intl.DateTimeFormatOptions): string => {
      try {
        return new Intl.DateTimeFormat(language, { ...o, timeZone }).format(now);
      } catch {
        return new Intl.DateTimeFormat(language, o).format(now);
      }
    };
    $("clock").textContent = fmt({ hour: "numeric", minute: "2-digit" });
    $("day").textContent = fmt({ weekday: "long" });
    $("date").textContent = fmt({ day: "numeric", month: "long", year: "numeric" });
    const hour = Number(fmt({ hour: "numeric", hourCycle: "h23" }).replace(/\D/g, ""));
    // The language's own clock: 24-hour where that is the custom (de), 12-hour where it is not (en, hi).
    const part = hour >= 5 && hour < 12 ? "morning" : hour >= 12 && hour < 17 ? "afternoon" : hour >= 17 && hour < 21 ? "evening" : "night";
    $("part-of-day").textContent = t(`clock.${part}`);
    if (current?.kind === "prompt") drawCountdown(current);
  }

  // ---- one thing at a time --------------------------------------------------------------

  let current: Item | null = null;
  const queue: Item[] = [];
  // Prompts answered on this screen (`execution/step/expires_at`): a replay of one whose answer
  // is still on its way is not asked again; a loop asking again has a new expiry.
  const answeredHere = new Set<string>();
  let revealTimer: number | undefined;

  function enqueue(item: Item): void {
    if (item.kind === "extra") {
      if (current?.kind === "extra" && current.id === item.id) return;
      if (queue.some((i) => i.kind === "extra" && i.id === item.id)) return;
      queue.push(item);
    } else if (item.kind === "popup") {
      // The same popup twice (a popup and the voice channel of one notification): shown once.
      // A re-send of an alert already waiting here is not queued twice either.
      const same = (i: Item | null) =>
        i?.kind === "popup" &&
        ((item.alert_id !== null && i.alert_id === item.alert_id) || (i.message === item.message && i.level === item.level && item.at - i.at < 10000));
      if (same(current) || queue.some(same)) return;
      queue.push(item);
    } else {
      // A prompt goes before every popup, card and quiz; one on screen waits behind it.
      const firstPopup = queue.findIndex((i) => i.kind !== "prompt");
      queue.splice(firstPopup < 0 ? queue.length : firstPopup, 0, item);
      if (current?.kind === "popup" || current?.kind === "extra") {
        queue.splice(queue.indexOf(item) + 1, 0, current);
        current = null;
      }
    }
    if (!current) next();
  }

  function next(): void {
    window.clearTimeout(revealTimer);
    current = queue.shift() ?? null;
    if (!current) return showScreen("idle");
    const item = current;
    // A quiz going on to its next question is not a new arrival: no chime then.
    if (!(item.kind === "extra" && report.shown.includes(`${item.screen}:${item.id}`))) chime(item.kind === "popup" && item.level === "emergency");
    // The chime first, then the words.
    revealTimer = window.setTimeout(() => (item === current ? reveal(item) : undefined), CHIME_LEAD_MS);
  }

  function reveal(item: Item): void {
    if (item.kind === "extra") {
      item.show();
      showScreen(item.screen);
      if (!report.shown.includes(`${item.screen}:${item.id}`)) report.shown.push(`${item.screen}:${item.id}`);
    } else if (item.kind === "popup") {
      redrawWords(item);
      screens.popup.dataset.level = item.level;
      $("popup-message").textContent = item.message;
      const img = $<HTMLImageElement>("popup-image");
      img.hidden = !item.image_url;
      if (item.image_url) img.src = item.image_url;
      else img.removeAttribute("src");
      showScreen("popup");
      report.shown.push(`popup:${item.message}`);
    } else {
      redrawWords(item);
      $("prompt-message").textContent = item.message;
      $("prompt-thanks").hidden = true;
      $("prompt-buttons").hidden = false;
      $("prompt-countdown").hidden = false;
      drawCountdown(item);
      showScreen("prompt");
      report.shown.push(`prompt:${item.execution_id}/${item.step_id}`);
    }
  }

  /** The fixed words around a popup's or a prompt's own message, in her language. */
  function redrawWords(item: Popup | Prompt): void {
    if (item.kind === "popup") {
      $("popup-level").textContent = i18n?.exists(`popup.level.${item.level}`) ? t(`popup.level.${item.level}`) : item.level;
      return;
    }
    $("prompt-title").textContent = own(item.title, "prompt.title");
    $("prompt-dismiss").textContent = own(item.dismiss, "prompt.dismiss");
    $("prompt-escalate").textContent = own(item.escalate, "prompt.escalate");
    if (item.answered) $("prompt-thanks-answer").textContent = t("prompt.you_answered", { button: buttonOf(item, item.answered) });
    drawCountdown(item);
  }
  const buttonOf = (p: Prompt, action: string): string => (action === "dismiss" ? own(p.dismiss, "prompt.dismiss") : own(p.escalate, "prompt.escalate"));

  function drawCountdown(p: Prompt): void {
    const left = Math.max(0, Math.ceil((p.deadline - Date.now()) / 1000));
    // "12 seconds left", "Noch 12 Sekunden", "12 सेकंड बाकी": the number where her language puts it, in its own span.
    const words = t("prompt.seconds_left", { count: left });
    const at = words.indexOf(String(left));
    const number = document.createElement("span");
    number.id = "prompt-seconds";
    number.textContent = String(left);
    $("prompt-seconds-left").replaceChildren(...(at < 0 ? [words] : [words.slice(0, at), number, words.slice(at + String(left).length)]));
    const total = Number(screens.prompt.dataset.total ?? "30") || 30;
    $("prompt-bar").style.width = `${Math.min(100, (100 * left) / total)}%`;
    // The server closes a prompt nobody answered; if its word never comes, stop asking anyway.
    if (left === 0 && !p.answered && Date.now() - p.deadline > 5000) closePrompt(p.execution_id, p.step_id);
  }

  function closePrompt(execution_id: number, step_id: number): void {
    const match = (i: Item | null) => i?.kind === "prompt" && i.execution_id === execution_id && i.step_id === step_id;
    for (let i = queue.length - 1; i >= 0; i--) if (match(queue[i])) queue.splice(i, 1);
    if (match(current)) {
      const p = current as Prompt;
      if (p.answered) return; // our own thanks is on screen; it moves on by itself
      next();
    }
  }

  function answer(action: "dismiss" | "escalate"): void {
    if (current?.kind !== "prompt" || current.answered) return;
    const p = current;
    p.answered = action;
    answeredHere.add(`${p.execution_id}/${p.step_id}/${p.expires_at}`);
    const button = buttonOf(p, action);
    send({ type: "interactive_response", execution_id: p.execution_id, step_id: p.step_id, action, channel: "pwa_popup_text", raw_response: { button } });
    report.answers.push({ execution_id: p.execution_id, step_id: p.step_id, action });
    $("prompt-buttons").hidden = true;
    $("prompt-countdown").hidden = true;
    $("prompt-thanks-answer").textContent = t("prompt.you_answered", { button });
    $("prompt-thanks").hidden = false;
    window.setTimeout(() => (current === p ? next() : undefined), 3000);
  }

  $("prompt-dismiss").addEventListener("click", () => answer("dismiss"));
  $("prompt-escalate").addEventListener("click", () => answer("escalate"));
  /** OK: off the screen, and an alert's popup put away here for good (the alert stays open for the family). */
  function dismissPopup(): void {
    if (current?.kind !== "popup") return;
    const id = current.alert_id;
    if (id !== null) {
      putAway.add(id);
      localStorage.setItem(PUT_AWAY_STORE, JSON.stringify([...readPutAway().filter((n) => n !== id), id].slice(-100)));
      for (let i = queue.length - 1; i >= 0; i--) {
        const q = queue[i];
        if (q.kind === "popup" && q.alert_id === id) queue.splice(i, 1);
      }
      send({ type: "popup_dismiss", alert_id: id });
      report.dismissed.push(id);
    }
    next();
  }
  $("popup-ok").addEventListener("click", dismissPopup);

  // ---- sound ------------------------------------------------------------------------------

  const AudioCtor = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  const audio = AudioCtor ? new AudioCtor() : null;
  function unlockHint(): void {
    $("sound-hint").hidden = !audio || audio.state !== "suspended";
  }
  if (audio) {
    audio.addEventListener("statechange", unlockHint);
    document.addEventListener("pointerdown", () => void audio.resume().then(unlockHint), { passive: true });
    void audio.resume().catch(() => undefined);
    window.setTimeout(unlockHint, 500);
  }

  /** Two soft bell-like tones, falling; a third, higher one for an emergency. */
  function chime(urgent: boolean): void {
    if (!audio || audio.state !== "running") return;
    report.chimes++;
    const notes = urgent ? [880, 659.25, 880] : [659.25, 523.25];
    notes.forEach((freq, i) => {
      const t = audio.currentTime + 0.02 + i * 0.35;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0, t);
      gain.gain.linearRampToValueAtTime(0.18, t + 0.03);
      gain.gain.exponentialRampToValueAtTime(0.001, t + 1.1);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 1.2);
    });
  }

  let stream: { rate: number; at: number } | null = null;
  let speakingUntil = 0;
  function speaking(text: string | null, seconds: number): void {
    speakingUntil = Math.max(speakingUntil, Date.now() + seconds * 1000);
    report.audio.playing = true;
    if (text) $("speaking-text").textContent = text;
    $("speaking").hidden = false;
  }
  window.setInterval(() => {
    if (report.audio.playing && Date.now() > speakingUntil + 300) {
      report.audio.playing = false;
      $("speaking").hidden = true;
    }
  }, 250);

  function playPcm(data: ArrayBuffer): void {
    report.audio.frames++;
    report.audio.bytes += data.byteLength;
    if (!audio || !stream) return;
    const played = schedulePcm(audio, data, stream.rate, stream.at);
    if (!played) return;
    stream.at = played.end;
    speaking(null, stream.at - audio.currentTime);
  }

  /** Plays int16 LE mono PCM right after `after` (or at once): back to back with what is queued. */
  function schedulePcm(ctx: AudioContext, data: ArrayBuffer, rate: number, after: number): { src: AudioBufferSourceNode; end: number } | null {
    const samples = new Int16Array(data, 0, data.byteLength >> 1);
    if (samples.length === 0) return null;
    const buffer = ctx.createBuffer(1, samples.length, rate);
    const out = buffer.getChannelData(0);
    for (let i = 0; i < samples.length; i++) out[i] = samples[i] / 32768;
    const src = ctx.createBufferSource();
    src.buffer = buffer;
    src.connect(ctx.destination);
    const at = Math.max(after, ctx.currentTime + 0.05);
    src.start(at);
    return { src, end: at + buffer.duration };
  }

  async function playClip(url: string, text: string | null): Promise<void> {
    const res = await fetch(url);
    const bytes = await res.arrayBuffer();
    report.audio.clips++;
    report.audio.bytes += bytes.byteLength;
    if (!audio) return;
    const buffer = await audio.decodeAudioData(bytes);
    const src = audio.createBufferSource();
    src.buffer = buffer;
    src.connect(audio.destination);
    src.start();
    speaking(text, buffer.duration);
  }

  function onAnnouncement(f: Frame): void {
    const text = typeof f.text === "string" ? f.text : null;
    if (f.subtype === "stream_start") {
      report.audio.streams++;
      stream = { rate: Number(f.sample_rate) || 24000, at: 0 };
      speaking(text, 1);
    } else if (f.subtype === "stream_end") {
      report.audio.ended++;
      stream = null;
    } else if (f.subtype === "audio_url" && typeof f.url === "string") {
      playClip(f.url, text).catch((err: unknown) => console.warn("careflow: the announcement could not be played", err));
    }
  }

  // ---- the connection ---------------------------------------------------------------------

  const stateListeners: Array<(state: State) => void> = [];

  let ws: WebSocket | null = null;
  let attempt = 0;
  let retryAt = 0;
  let retryTimer: number | undefined;

  function setState(state: State): void {
    report.state = state;
    document.body.dataset.connection = state;
    $("status-text").textContent = t(`status.${state}`);
    drawRetry();
    for (const fn of stateListeners) fn(state);
  }
  function drawRetry(): void {
    const left = Math.max(0, Math.ceil((retryAt - Date.now()) / 1000));
    $("status-retry").textContent = report.state === "disconnected" && left > 0 ? t("status.retry", { count: left }) : "";
  }
  window.setInterval(drawRetry, 500);

  // Answers given while the socket is down wait here and go out when it is back: the senior
  // was thanked, so the answer must not be lost (the server keeps the first answer only).
  const outbox: Frame[] = [];
  function send(frame: Frame): void {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
    else outbox.push(frame);
  }

  function connect(): void {
    if (!key) return;
    window.clearTimeout(retryTimer);
    setState("connecting");
    const url = `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws?tablet=${tablet}`;
    // The key as the subprotocol when it is a valid token; else in the query.
    const socket = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(key) ? new WebSocket(url, [key]) : new WebSocket(`${url}&api_key=${encodeURIComponent(key)}`);
    socket.binaryType = "arraybuffer";
    ws = socket;
    socket.onopen = () => {
      attempt = 0;
      report.connects++;
      setState("connected");
      // Put away here but not yet confirmed (the tablet was offline, or restarted): said again.
      const pending = new Set(outbox.filter((f) => f.type === "popup_dismiss").map((f) => f.alert_id));
      for (const id of readPutAway()) if (!pending.has(id)) outbox.push({ type: "popup_dismiss", alert_id: id });
      for (const frame of outbox.splice(0)) socket.send(JSON.stringify(frame));
    };
    socket.onmessage = (ev: MessageEvent) => {
      if (ev.data instanceof ArrayBuffer) return playPcm(ev.data);
      let f: Frame;
      try {
        f = JSON.parse(String(ev.data)) as Frame;
      } catch {
        return;
      }
      receive(f);
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      ws = null;
      const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** attempt++);
      retryAt = Date.now() + delay;
      setState("disconnected");
      retryTimer = window.setTimeout(connect, delay);
    };
  }

  const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);

  function receive(f: Frame): void {
    switch (f.type) {
      case "welcome":
        frameHandlers.welcome?.(f); // the voice companion (voice.ts) reads whether it is offered
        heardLanguage(f);
        if (typeof f.timezone === "string") {
          timeZone = f.timezone;
          localStorage.setItem(TZ_STORE, f.timezone);
          tick();
        }
        return;
      case "interactive_prompt": {
        const message = str(f.message) || str(f.voice_prompt);
        if (!message) return;
        // The server sends open prompts again on every connect: one already here is not shown twice.
        const same = (i: Item | null) => i?.kind === "prompt" && !i.answered && i.execution_id === Number(f.execution_id) && i.step_id === Number(f.step_id);
        if (same(current) || queue.some(same) || answeredHere.has(`${f.execution_id}/${f.step_id}/${str(f.expires_at)}`)) return;
        const seconds = Number(f.countdown_seconds) || 30;
        screens.prompt.dataset.total = String(Number(f.countdown_total_seconds) || seconds);
        enqueue({
          kind: "prompt",
          execution_id: Number(f.execution_id),
          step_id: Number(f.step_id),
          // Her language's words where the rule kept the spec's English defaults (or sent none).
          title: str(f.title),
          message,
          dismiss: str(f.dismiss_button_text),
          escalate: str(f.escalate_button_text),
          deadline: Date.now() + seconds * 1000,
          expires_at: str(f.expires_at),
          answered: null,
        });
        return;
      }
      case "error":
        // A put-away popup of an alert the server no longer has: nothing left to say.
        if (typeof f.alert_id === "number") localStorage.setItem(PUT_AWAY_STORE, JSON.stringify(readPutAway().filter((n) => n !== f.alert_id)));
        else frameHandlers.error?.(f); // a refused quiz answer (knowledge.ts)
        return;
      case "popup_dismissed":
        // The server keeps it now: no need to say it again.
        localStorage.setItem(PUT_AWAY_STORE, JSON.stringify(readPutAway().filter((n) => n !== Number(f.alert_id))));
        return;
      case "language":
        return heardLanguage(f);
      case "interactive_prompt_closed":
        return closePrompt(Number(f.execution_id), Number(f.step_id));
      case "announcement":
        return onAnnouncement(f);
      case "emergency":
      case "warning":
      case "info":
      case "reminder":
        if (typeof f.alert_id === "number" && putAway.has(f.alert_id)) return;
        if (str(f.message))
          enqueue({
            kind: "popup",
            level: f.type,
            message: str(f.message),
            room: typeof f.room === "string" ? f.room : null,
            image_url: typeof f.image_url === "string" ? f.image_url : null,
            alert_id: typeof f.alert_id === "number" ? f.alert_id : null,
            at: Date.now(),
          });
        return;
      default:
        frameHandlers[f.type]?.(f); // cards and quizzes (knowledge.ts), the voice companion (voice.ts)
        return; // alert updates, results of our answers, tracking frames: nothing to show
    }
  }

  // ---- what the other scripts plug into: cards and quizzes (knowledge.ts), voice (voice.ts) ----

  const frameHandlers: Record<string, (f: Frame) => void> = {};
  (window as unknown as { careflowApp: CareflowApp }).careflowApp = {
    onFrame: (type, fn) => void (frameHandlers[type] = fn),
    enqueue: (item) => enqueue({ kind: "extra", ...item }),
    /** Shown again (its content changed, e.g. the next question): drawn at once if on screen. */
    redraw: (id) => {
      if (current?.kind === "extra" && current.id === id) reveal(current);
    },
    /** Done: off the screen (the next thing comes) or out of the queue. */
    finish: (id) => {
      for (let i = queue.length - 1; i >= 0; i--) {
        const q = queue[i];
        if (q.kind === "extra" && q.id === id) queue.splice(i, 1);
      }
      if (current?.kind === "extra" && current.id === id) next();
    },
    isShowing: (id) => current?.kind === "extra" && current.id === id,
    send: (frame) => send(frame),
    sendLive: (frame) => {
      if (ws?.readyState !== WebSocket.OPEN) return false;
      ws.send(JSON.stringify(frame));
      return true;
    },
    onState: (fn) => void stateListeners.push(fn),
    audio,
    schedulePcm,
    report,
    t,
    onLanguage: (fn) => void languageListeners.push(fn),
  };

  // Back online or back on screen: try now instead of waiting for the timer.
  const retryNow = () => {
    if (report.state === "disconnected") connect();
  };
  window.addEventListener("online", retryNow);
  document.addEventListener("visibilitychange", () => (document.visibilityState === "visible" ? retryNow() : undefined));

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/app/sw.js", { scope: "/app/" }).catch((err: unknown) => console.warn("careflow: no offline copy", err));
  }

  void loadLanguage().finally(start);
  function start(): void {
    tick();
    window.setInterval(tick, 1000);
    if (!key) {
      setState("unconfigured");
      showScreen("setup");
    } else {
      showScreen("idle");
      // The cards and quizzes (knowledge.js) and voice (voice.js) come after this script: connect
      // once they have plugged in, or a frame the server sends at once (the question a reloaded
      // tablet is at, the welcome) finds no handler while a slow script is still on its way.
      if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect, { once: true });
      else connect();
    }
  }
})();

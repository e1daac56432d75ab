/**
 * The voice companion on the senior's web app: a conversation the server starts (a
 * notification, a prompt's voice prompt, the Talk button). The microphone goes to the server in
 * 100 ms chunks of 24 kHz PCM, the companion's audio comes back the same way and plays at once;
 * its words and the senior's show at the top. The microphone is open only while a conversation
 * goes on, and a lost connection ends it. It plugs into the page script (app.ts) as the cards
 * and quizzes do (knowledge.ts): frames in, frames out, and the page's audio.
 */
(() => {
  const found = (window as unknown as { careflowApp?: CareflowApp }).careflowApp;
  if (!found) return;
  const app: CareflowApp = found;
  type Frame = CareflowAppFrame;
  const audio = app.audio;

  const $ = (id: string): HTMLElement => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`#${id} is missing from the page`);
    return el;
  };
  const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);

  const voice = {
    sessions: 0,
    played: 0,
    active: null as string | null,
    frames: 0,
    bytes: 0,
    mic_chunks: 0,
    interrupts: 0,
    transcripts: [] as string[],
    ended: [] as string[],
    error: null as string | null,
  };
  app.report.voice = voice;
  let connected = false;

  const VOICE_RATE = 24000;
  let voiceAvailable = false;
  let mic: { stream: MediaStream; node: AudioWorkletNode } | null = null;
  let micLoading: Promise<void> | null = null;
  let voiceOut = { at: 0, sources: [] as AudioBufferSourceNode[] };

  const toBase64 = (buf: ArrayBuffer): string => {
    const bytes = new Uint8Array(buf);
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(text);
  };
  const fromBase64 = (b64: string): ArrayBuffer => {
    const text = atob(b64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes.buffer;
  };

  async function openMic(sessionId: string): Promise<void> {
    if (!audio || mic) return;
    if (!navigator.mediaDevices?.getUserMedia) throw new Error("this browser gives no microphone");
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
    });
    await audio.audioWorklet.addModule("/app/mic-worklet.js");
    const node = new AudioWorkletNode(audio, "careflow-mic");
    node.port.onmessage = (e: MessageEvent) => {
      if (voice.active !== sessionId) return;
      // Audio is live or nothing: a chunk is never kept for a later connection.
      if (app.sendLive({ type: "voice_audio", session_id: sessionId, audio: toBase64(e.data as ArrayBuffer) })) voice.mic_chunks++;
    };
    // Pulled through a silent gain: the worklet runs, nothing of the microphone is heard.
    const mute = audio.createGain();
    mute.gain.value = 0;
    audio.createMediaStreamSource(stream).connect(node).connect(mute).connect(audio.destination);
    mic = { stream, node };
  }

  function closeMic(): void {
    if (!mic) return;
    for (const track of mic.stream.getTracks()) track.stop();
    mic.node.port.onmessage = null;
    mic.node.disconnect();
    mic = null;
  }

  function stopVoiceAudio(): void {
    for (const src of voiceOut.sources) {
      try {
        src.stop();
      } catch {
        // already ended
      }
    }
    voiceOut = { at: 0, sources: [] };
  }

  function playVoice(b64: string): void {
    const data = fromBase64(b64);
    voice.frames++;
    voice.bytes += data.byteLength;
    if (!audio) return;
    const played = app.schedulePcm(audio, data, VOICE_RATE, voiceOut.at);
    if (!played) return;
    const { src } = played;
    voice.played++;
    voiceOut.at = played.end;
    voiceOut.sources.push(src);
    src.onended = () => (voiceOut.sources = voiceOut.sources.filter((s) => s !== src));
  }

  function showVoice(on: boolean): void {
    $("voice").hidden = !on;
    document.body.dataset.voice = on ? "on" : "off";
    drawTalk();
  }
  function drawTalk(): void {
    $("talk").hidden = !voiceAvailable || voice.active !== null || !connected;
  }

  function onVoice(f: Frame): void {
    const id = str(f.session_id);
    switch (f.subtype) {
      case "session_start":
        voice.sessions++;
        voice.active = id;
        voice.error = null;
        $("voice-words").textContent = "";
        $("voice-state").textContent = app.t("voice.listening");
        showVoice(true);
        micLoading = openMic(id).catch((err: unknown) => {
          voice.error = err instanceof Error ? err.message : String(err);
          $("voice-state").textContent = app.t("voice.mic_off");
        });
        return;
      case "audio":
        if (id === voice.active && typeof f.audio === "string") playVoice(f.audio);
        return;
      case "interrupt":
        voice.interrupts++;
        stopVoiceAudio();
        return;
      case "transcript": {
        const words = str(f.text);
        voice.transcripts.push(`${str(f.role)}: ${words}`);
        $("voice-words").textContent = f.role === "user" ? app.t("voice.you_said", { words }) : words;
        return;
      }
      case "session_end":
        if (id !== voice.active) return;
        voice.ended.push(`${id}: ${str(f.reason)}`);
        voice.active = null;
        void (micLoading ?? Promise.resolve()).then(closeMic);
        showVoice(false);
        return;
      case "start_result":
        if (f.ok !== true) {
          voice.error = str(f.detail);
          $("voice-words").textContent = "";
        }
        drawTalk();
        return;
      default:
        return;
    }
  }

  // "Speaking…" while the companion's audio plays, "Listening…" otherwise (unless the microphone failed).
  window.setInterval(() => {
    if (!voice.active || voice.error) return;
    const speaking = voiceOut.sources.length > 0 && audio !== null && voiceOut.at > audio.currentTime;
    $("voice-state").textContent = app.t(speaking ? "voice.speaking" : "voice.listening");
  }, 200);

  $("talk").addEventListener("click", () => {
    void audio?.resume();
    app.send({ type: "voice_start" });
  });
  $("voice-stop").addEventListener("click", () => {
    if (voice.active) app.send({ type: "voice_stop", session_id: voice.active });
  });

  app.onFrame("voice", onVoice);
  app.onFrame("welcome", (f) => {
    voiceAvailable = f.voice === true;
    drawTalk();
  });
  app.onState((state) => {
    connected = state === "connected";
    if (state === "disconnected" && voice.active) {
      voice.active = null;
      closeMic();
      stopVoiceAudio();
      showVoice(false);
    }
    drawTalk();
  });
})();

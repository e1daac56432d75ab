/**
 * The web app's service worker (`/app/sw.js`, scope `/app/`): keeps the app's shell so the
 * tablet shows the clock and its "not connected" state while the server is away, and takes
 * the network's copy whenever there is one (so an update reaches the tablet at once).
 * Everything else (the socket, the API, speech clips) goes to the network untouched.
 */
(() => {
  // Only what this worker uses of the ServiceWorker API (the project's lib is the DOM's).
  interface ExtendableEvent extends Event {
    waitUntil(p: Promise<unknown>): void;
  }
  interface FetchEvent extends ExtendableEvent {
    request: Request;
    respondWith(r: Promise<Response>): void;
  }
  interface WorkerScope {
    addEventListener(type: "install" | "activate", fn: (e: ExtendableEvent) => void): void;
    addEventListener(type: "fetch", fn: (e: FetchEvent) => void): void;
    skipWaiting(): Promise<void>;
    clients: { claim(): Promise<void> };
  }
  const worker = self as unknown as WorkerScope;
  const CACHE = "careflow-app-v4";
  const SHELL = [
    "/app/",
    "/app/app.js",
    "/app/knowledge.js",
    "/app/voice.js",
    "/app/mic-worklet.js",
    "/app/i18next.js",
    "/app/messages.en.json",
    "/app/fonts.css",
    "/app/app.css",
    "/app/manifest.webmanifest",
    "/app/icon-192.png",
    "/app/icon-512.png",
  ];

  worker.addEventListener("install", (e) => {
    e.waitUntil(
      caches
        .open(CACHE)
        .then((c) => c.addAll(SHELL))
        .then(() => worker.skipWaiting()),
    );
  });

  worker.addEventListener("activate", (e) => {
    e.waitUntil(
      caches
        .keys()
        .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
        .then(() => worker.clients.claim()),
    );
  });

  worker.addEventListener("fetch", (e) => {
    const url = new URL(e.request.url);
    // The shell, and careflow's fonts once the page has used one (kept as they come: a tablet needs only its scripts').
    const kept = SHELL.includes(url.pathname) || /^\/app\/[\w-]+\.ttf$/.test(url.pathname);
    if (e.request.method !== "GET" || url.origin !== location.origin || !kept) return;
    e.respondWith(
      fetch(e.request)
        .then((res) => {
          if (res.ok) {
            const copy = res.clone();
            void caches.open(CACHE).then((c) => c.put(url.pathname, copy));
          }
          return res;
        })
        .catch(() => caches.match(url.pathname).then((hit) => hit ?? Response.error())),
    );
  });
})();

/**
 * A library loaded at its first use instead of at start. Start-up is mostly `require`
 * (issue 29: ~2,900 modules); a client only some households use (a chat service, a model
 * server, the tracking broker) or only some requests need (an image check, a QR code) waits
 * for that use. `load` is a `require` call, so the type comes from `typeof import(...)`.
 */
export function lazyModule<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

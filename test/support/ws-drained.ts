/**
 * Proof that a `/ws` client has everything the server sent it so far: a ping goes out and its
 * pong comes back on the same ordered stream, after every frame the server wrote before it read
 * the ping. A "no popup came" check runs after the component settled and this, not after a sleep.
 */
import type WebSocket from "ws";

/** Resolves when the pong to a ping sent now arrives (the socket closing rejects). */
export function drained(ws: WebSocket, ms = 10_000): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      ws.off("pong", onPong);
      ws.off("close", onClose);
      if (err) reject(err);
      else resolve();
    };
    const onPong = () => done();
    const onClose = () => done(new Error("the socket closed before its pong"));
    const timer = setTimeout(() => done(new Error(`no pong within ${ms} ms`)), ms);
    ws.on("pong", onPong);
    ws.on("close", onClose);
    ws.ping();
  });
}

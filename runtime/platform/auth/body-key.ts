/**
 * A device that sends its key in the JSON body (`device_key`) and not in the header or query:
 * the key is read from the body's first `BODY_KEY_WINDOW` bytes as they arrive, before the
 * rest (a camera frame of up to 25 MB) is read. Without the key by then, or with a wrong
 * one, the request is answered at once and the rest is never read, so an anonymous caller
 * costs at most the window, not a parsed frame. A device puts `device_key` before the image.
 */
import type { Request } from "express";

export const BODY_KEY_WINDOW = 64 * 1024;

type Scan = { state: "found"; key: string } | { state: "absent" } | { state: "more" };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Index after the string starting at `i` (a quote), or -1 when it does not end in `b`. */
function stringEnd(b: Buffer, i: number): number {
  for (let j = i + 1; j < b.length; j++) {
    if (b[j] === BACKSLASH) j++;
    else if (b[j] === QUOTE) return j + 1;
  }
  return -1;
}

/** Index after the value starting at `i`, or -1 when it does not end in `b`. */
function valueEnd(b: Buffer, i: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let j = i; j < b.length; j++) {
      const d = b[j];
      if (d === QUOTE) {
        const end = stringEnd(b, j);
        if (end < 0) return -1;
        j = end - 1;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A number or literal ends at a delimiter; at the buffer's end it may go on.
  for (let j = i; j < b.length; j++) if (b[j] === 0x2c || b[j] === 0x7d || b[j] === 0x5d || isSpace(b[j])) return j;
  return -1;
}

const text = (b: Buffer, from: number, to: number): string | null => {
  try {
    const v: unknown = JSON.parse(b.subarray(from, to).toString("utf8"));
    return typeof v === "string" ? v : null;
  } catch {
    return null;
  }
};

/**
 * The top-level `device_key` string of a JSON object whose start is `b`: found, absent (not an
 * object, not a string, or not there), or more bytes needed. `complete`: `b` is the whole body.
 */
export function scanBodyKey(b: Buffer, complete: boolean): Scan {
  const more: Scan = complete ? { state: "absent" } : { state: "more" };
  const ws = (i: number) => {
    while (i < b.length && isSpace(b[i])) i++;
    return i;
  };
  let i = ws(0);
  if (i >= b.length) return more;
  if (b[i] !== 0x7b) return { state: "absent" };
  for (i = ws(i + 1); ;) {
    if (i >= b.length) return more;
    if (b[i] !== QUOTE) return { state: "absent" }; // `}` or not JSON
    const nameEnd = stringEnd(b, i);
    if (nameEnd < 0) return more;
    const name = text(b, i, nameEnd);
    i = ws(nameEnd);
    if (i >= b.length) return more;
    if (b[i] !== 0x3a) return { state: "absent" };
    i = ws(i + 1);
    if (i >= b.length) return more;
    const end = valueEnd(b, i);
    if (end < 0) return more;
    if (name === "device_key") {
      const key = b[i] === QUOTE ? text(b, i, end) : null;
      return key ? { state: "found", key } : { state: "absent" };
    }
    i = ws(end);
    if (i >= b.length) return more;
    if (b[i] !== 0x2c) return { state: "absent" };
    i = ws(i + 1);
  }
}

/** A failure shaped as body-parser's, so the error handler answers it as the other bodies' (413, 422). */
const parserError = (type: string, message: string, status: number): Error => Object.assign(new Error(message), { type, status });

/**
 * Reads a device's JSON body whose key is in it: the key is taken from the first `window` bytes
 * and given to `verify` as soon as it is complete; only a key `verify` accepts lets the rest be
 * read (up to `limit` bytes) and parsed. The stream is paused while `verify` looks the key up
 * (it may ask the store), and any refusal stops reading there.
 */
export function readBodyWithKey(
  req: Request,
  limit: number,
  noKey: () => Error,
  verify: (key: string) => Promise<Error | undefined>,
  window = BODY_KEY_WINDOW,
): Promise<{ body: unknown } | { error: Error }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let state: "scanning" | "verifying" | "verified" | "done" = "scanning";
    let ended = false;
    const detach = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const settle = (result: { body: unknown } | { error: Error }) => {
      if (state === "done") return;
      state = "done";
      detach();
      resolve(result);
    };
    const stop = (error: Error) => {
      req.pause();
      settle({ error });
    };
    const parse = () => {
      try {
        settle({ body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown });
      } catch (err) {
        settle({ error: parserError("entity.parse.failed", (err as Error).message, 400) });
      }
    };
    const check = (key: string) => {
      state = "verifying";
      if (!ended) req.pause();
      verify(key).then(
        (refused) => {
          if (state === "done") return; // the client went away meanwhile
          if (refused) return stop(refused);
          state = "verified";
          if (ended) parse();
          else req.resume();
        },
        (err: Error) => stop(err),
      );
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) return stop(parserError("entity.too.large", "request entity too large", 413));
      if (state !== "scanning") return;
      const scan = scanBodyKey(Buffer.concat(chunks), false);
      if (scan.state === "found") check(scan.key);
      else if (scan.state === "absent" || size >= window) stop(noKey());
    };
    const onEnd = () => {
      ended = true;
      // Everything has arrived: a close from now on is the request's normal end, not an abort.
      detach();
      if (state === "verified") return parse();
      if (state !== "scanning") return; // verifying: parsed once the key is accepted
      const scan = scanBodyKey(Buffer.concat(chunks), true);
      if (scan.state !== "found") return settle({ error: noKey() });
      check(scan.key);
    };
    const onError = (err: Error) => stop(err);
    // A client gone before the end: nothing more will come, and nobody waits for an answer.
    const onClose = () => stop(parserError("request.aborted", "request aborted", 400));
    const declared = Number(req.headers["content-length"]);
    if (declared > limit) return resolve({ error: parserError("entity.too.large", "request entity too large", 413) });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

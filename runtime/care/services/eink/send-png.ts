/**
 * Sends PNG bytes as they are. `res.send` is avoided on purpose: it would add an ETag and
 * answer 304 to a conditional request, a second "no change" path beside the spec's 204
 * that would bypass the delivery record.
 */
import type { Response } from "express";

export function sendPng(res: Response, png: Buffer, headers: Record<string, string> = {}): void {
  res.status(200);
  res.setHeader("Content-Type", "image/png");
  res.setHeader("Content-Length", String(png.length));
  res.setHeader("Cache-Control", "no-store");
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.end(png);
}

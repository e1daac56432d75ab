import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { UnauthorizedError } from '../errors';

/**
 * Optional shared key. OpenAI clients send `Authorization: Bearer <key>`; the main service's
 * convention is `X-API-Key`. Both are accepted and compared in constant time.
 */
export function requireApiKey(apiKey: string | undefined): RequestHandler {
  if (!apiKey) return (_req, _res, next) => next();
  const expected = Buffer.from(apiKey);
  return (req, _res, next) => {
    const bearer = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
    const given = Buffer.from(bearer ?? req.get('x-api-key') ?? '');
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    next(ok ? undefined : new UnauthorizedError());
  };
}

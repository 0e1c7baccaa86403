/**
 * The dev server's per-start token: made at random when `npm start` starts and handed to the pages
 * it serves. The dev server's own routes (the model proxy, the agent server) answer only requests
 * that carry it as `Authorization: Bearer <token>`, so another site open in the same browser,
 * which cannot read the page, cannot use them.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh token (48 hex digits). */
export function makePageToken(): string {
  return randomBytes(24).toString('hex');
}

/**
 * Whether `request` carries `token` as its bearer token (compared in constant time).
 * @example
 * if (!carriesToken(request, token)) return new Response(null, { status: 401 });
 */
export function carriesToken(request: Request, token: string): boolean {
  const sent = Buffer.from(request.headers.get('authorization') ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return sent.length === expected.length && timingSafeEqual(sent, expected);
}

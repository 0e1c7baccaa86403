/**
 * A request body read with a size and a time limit: what the handler's routes and the model
 * proxy both read their bodies with.
 * @module
 */
import { systemClock } from '../clock.js';

/** The largest request body read: 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** How long a request body may take to arrive. */
export const BODY_TIMEOUT_MS = 30_000;

/** The body's bytes, or why there are none: over the size limit, not arrived in time, or unreadable. */
export type BodyRead =
  { ok: true; bytes: Uint8Array } | { ok: false; reason: 'too_large' | 'late' | 'unreadable' };

/**
 * Reads the whole body (none reads as no bytes). Over {@link MAX_BODY_BYTES} it stops as soon as
 * that is seen, and a `content-length` over it is not read at all; a body still arriving after
 * {@link BODY_TIMEOUT_MS} is `late` (the reader is cancelled, so what arrived is not the whole body).
 */
export async function readBody(request: Request): Promise<BodyRead> {
  if (Number(request.headers.get('content-length') ?? '0') > MAX_BODY_BYTES)
    return { ok: false, reason: 'too_large' };
  if (!request.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  let late = false;
  const timer = systemClock.setTimeout(() => {
    late = true;
    void reader.cancel().catch(() => {});
  }, BODY_TIMEOUT_MS);
  const pieces: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        void reader.cancel().catch(() => {});
        return { ok: false, reason: 'too_large' };
      }
      pieces.push(value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  } finally {
    systemClock.clearTimeout(timer);
  }
  if (late) return { ok: false, reason: 'late' };
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  return { ok: true, bytes };
}

/**
 * The proxy's own answers when it does not relay one: the handler's error shape,
 * `{ error: { code, message } }`, with an HTTP status.
 * @module
 */
import type { AgentErrorCode } from '../types.js';

/** A request the proxy answers itself: its status, code and message. */
export interface ProxyRefusal {
  readonly status: number;
  readonly code: AgentErrorCode;
  readonly message: string;
}

/** The JSON error response for `refusal`. */
export function refusalResponse(refusal: ProxyRefusal): Response {
  return Response.json(
    { error: { code: refusal.code, message: refusal.message } },
    { status: refusal.status, headers: { 'cache-control': 'no-store' } },
  );
}

/**
 * The route table: method and path (below `basePath`) to the handler of that request. A path
 * that matches no route is 404 `INVALID_INPUT`.
 * @module
 */

import { matchChatRoute, type ChatRoute } from './ui-message/chat-routes.js';

/** A matched route. */
export type Route =
  | ChatRoute
  | { name: 'create' }
  | { name: 'list' }
  | { name: 'get'; id: string }
  | { name: 'delete'; id: string }
  | { name: 'turns'; id: string }
  | { name: 'continue'; id: string }
  | { name: 'discard'; id: string }
  | { name: 'close'; id: string }
  | { name: 'events'; id: string }
  | { name: 'cancel'; id: string; turnId: string }
  | { name: 'approval'; id: string; turnId: string; callId: string }
  | { name: 'modelProxy' };

const SEGMENT = /^[A-Za-z0-9._~:@-]{1,200}$/;

/** The route of `method` `path` (the part after `basePath`), or `null`. */
export function matchRoute(method: string, path: string): Route | null {
  const parts = path.split('/').slice(1);
  if (path === '' || path[0] !== '/') return null;
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  if (!decoded.every((p) => SEGMENT.test(p))) return null;
  const [first, id, action, turnId, sub, callId] = decoded;
  if (first === 'v1' && id === 'chat' && action === 'completions' && decoded.length === 3)
    return method === 'POST' ? { name: 'modelProxy' } : null;
  if (first === 'chat') return matchChatRoute(method, decoded);
  if (first !== 'sessions') return null;
  if (decoded.length === 1) {
    if (method === 'POST') return { name: 'create' };
    if (method === 'GET') return { name: 'list' };
    return null;
  }
  if (id === undefined) return null;
  if (decoded.length === 2) {
    if (method === 'GET') return { name: 'get', id };
    if (method === 'DELETE') return { name: 'delete', id };
    return null;
  }
  if (decoded.length === 3) {
    if (action === 'events') return method === 'GET' ? { name: 'events', id } : null;
    if (method !== 'POST') return null;
    if (action === 'turns') return { name: 'turns', id };
    if (action === 'continue') return { name: 'continue', id };
    if (action === 'discard') return { name: 'discard', id };
    if (action === 'close') return { name: 'close', id };
    return null;
  }
  if (action !== 'turns' || turnId === undefined || method !== 'POST') return null;
  if (decoded.length === 5 && sub === 'cancel') return { name: 'cancel', id, turnId };
  if (decoded.length === 6 && sub === 'approvals' && callId !== undefined)
    return { name: 'approval', id, turnId, callId };
  return null;
}

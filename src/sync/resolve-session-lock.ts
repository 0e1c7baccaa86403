/**
 * Which session lock an agent uses, decided once at `build()`.
 * @module
 */
import * as z from 'zod/mini';
import type { SessionLock } from '../ports/session-lock.js';
import type { SessionStorage } from '../ports/storage.js';
import { parseInput } from '../validate.js';
import { defaultSessionLock } from './web-locks-session-lock.js';

const SessionLockSchema = z.custom<SessionLock>(
  (v) => typeof v === 'object' && v !== null && typeof (v as SessionLock).acquire === 'function',
  'expected an object with acquire',
);

/**
 * The registered lock (`INVALID_INPUT` if it is not one), `null` when the lock was turned off,
 * or, when none was registered (`undefined`), the default: Web Locks on the storage's namespace
 * where they exist. Without a session storage there is no default lock: no other agent can open
 * the sessions, so there is nobody to keep out.
 */
export function resolveSessionLock(
  registered: SessionLock | null | undefined,
  storage: SessionStorage | null,
): SessionLock | null {
  if (registered === undefined) return storage ? defaultSessionLock(storage.namespace ?? 'default') : null;
  return registered === null ? null : parseInput(SessionLockSchema, registered, 'sessionLock');
}

/**
 * Turning what IndexedDB throws into `STORAGE_ERROR`s that say what went wrong and keep the
 * original as `cause`.
 * @module
 */
import { AgentError, describeError } from '../../errors.js';
import * as Errors from '../../error-constructors.js';

/** The DOMException name, when `error` has one. */
export function errorName(error: unknown): string | undefined {
  return error instanceof Error || error instanceof DOMException ? error.name : undefined;
}

/** `error` as a `STORAGE_ERROR` about `action` (an `AgentError` passes through unchanged). */
export function toStorageError(action: string, error: unknown): AgentError {
  if (AgentError.isInstance(error)) return error;
  const name = errorName(error);
  const hint =
    name === 'QuotaExceededError'
      ? ' — the storage quota is exceeded: free space or delete old sessions'
      : name === 'VersionError'
        ? ' — the database was upgraded by a newer version of the app: reload the page'
        : '';
  const message = describeError(error);
  const detail = name && !message.startsWith(name) ? `${name}${message ? `: ${message}` : ''}` : message;
  return Errors.storage(`IndexedDB: ${action} failed: ${detail}${hint}`, error);
}

/**
 * Who owns a session: the user who created it, recorded in the session itself (a `metadata`
 * event `session_owner`), so every instance on the same storage checks the same owner, whatever
 * storage the agent factory builds. A per-user storage namespace is a second wall, not the only
 * one.
 * @module
 */
import * as z from 'zod/mini';
import { SESSION_OWNER_KEY } from '../persistence/metadata-keys.js';
import type { SessionStorage } from '../ports/storage.js';
import type { SessionEvent, SessionSummary } from '../types.js';

export { SESSION_OWNER_KEY };

const OwnerSchema = /* @__PURE__ */ (() => z.looseObject({ userId: z.string() }))();

/** The owner event of a new session. */
export function ownerEvent(userId: string): SessionEvent {
  return {
    timestamp: new Date().toISOString(),
    payload: { type: 'metadata', key: SESSION_OWNER_KEY, value: { userId } },
  };
}

/** The owner a session's stored events name, or `null` when none does. */
export function ownerOf(events: readonly SessionEvent[]): string | null {
  for (const event of events) {
    const { payload } = event;
    if (payload.type !== 'metadata' || payload.key !== SESSION_OWNER_KEY) continue;
    const parsed = z.safeParse(OwnerSchema, payload.value);
    if (parsed.success) return parsed.data.userId;
  }
  return null;
}

/**
 * The owners this instance has seen, so a session's events are read once per instance to check
 * them: an owner never changes, and a deleted session is forgotten.
 */
export class OwnerCache {
  readonly #owners = new Map<string, string>();
  static readonly LIMIT = 100_000;

  /** Records the owner of a session. */
  set(sessionId: string, userId: string): void {
    if (this.#owners.size >= OwnerCache.LIMIT) this.#owners.delete(this.#owners.keys().next().value!);
    this.#owners.set(sessionId, userId);
  }

  /** The owner seen here of a session, if any. */
  ownerOf(sessionId: string): string | undefined {
    return this.#owners.get(sessionId);
  }

  /** Forgets a session. */
  delete(sessionId: string): void {
    this.#owners.delete(sessionId);
  }

  /**
   * Whether `userId` owns the session: from the cache, else from storage (an unknown session is
   * owned by nobody).
   */
  async owns(userId: string, sessionId: string, storage: SessionStorage | null): Promise<boolean> {
    const known = this.#owners.get(sessionId);
    if (known !== undefined) return known === userId;
    if (!storage) return false;
    const owner = await storedOwner(storage, sessionId);
    if (owner === null) return false;
    this.set(sessionId, owner);
    return owner === userId;
  }

  /** Whether `userId` owns a listed session: its summary's owner when it has one, else as `owns`. */
  async ownsListed(userId: string, summary: SessionSummary, storage: SessionStorage): Promise<boolean> {
    const owner = (summary as OwnedSummary).owner;
    if (typeof owner !== 'string') return this.owns(userId, summary.id, storage);
    this.set(summary.id, owner);
    return owner === userId;
  }
}

/** A summary that names its owner (storages that keep it with the summary). */
interface OwnedSummary extends SessionSummary {
  owner?: string;
}

/** A storage that reads one session's summary without its events. */
interface SummaryReader {
  loadSummary?: (sessionId: string) => Promise<OwnedSummary | null>;
}

/**
 * The owner of a stored session: from its summary when the storage reads one alone and it names
 * the owner, else from the owner record among its events; `null` for an unknown session.
 */
async function storedOwner(storage: SessionStorage, sessionId: string): Promise<string | null> {
  const reader = storage as SessionStorage & SummaryReader;
  if (typeof reader.loadSummary === 'function') {
    const summary = await reader.loadSummary(sessionId);
    if (summary === null) return null;
    if (typeof summary.owner === 'string') return summary.owner;
  }
  const events = await storage.loadSession(sessionId);
  return events === null ? null : ownerOf(events);
}

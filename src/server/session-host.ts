/**
 * `SessionHost`: the sessions this instance holds, by id, and the rules for opening one.
 *
 * - A new session is created by the agent the factory builds for its user, and its owner is
 *   recorded in it.
 * - Any other request first checks the owner (an unknown session and another user's session are
 *   the same `SESSION_NOT_FOUND`), then uses the copy held here, or opens one: a resume that
 *   takes the session's lock only when no one holds it.
 * - When another instance holds it, a read gets the stored state and a command takes it over (a
 *   steal: the holder's later writes are fenced out) — except a new turn or a continue while a
 *   turn runs there, `TURN_BUSY`. "A turn runs there" is what the lease says, when the lock
 *   records turns (PostgreSQL), decided as it is taken; else the stored history (a
 *   `turn_started` marker with no `turn_ended` after it).
 * - At most `maxOpenSessions` are held (`SERVER_BUSY` beyond).
 * @module
 */
import type { Agent } from '../agent.js';
import { AgentError, Errors } from '../errors.js';
import { findInterruptedTurn } from '../persistence/interrupted-turn.js';
import { isTurnAwareLock } from '../ports/session-lock.js';
import type { SessionConfig } from '../types.js';
import { HostedSession } from './hosted-session.js';
import { ServerErrors } from './http.js';
import { OwnerCache, ownerEvent } from './ownership.js';

/** What a request needs of a session: to read it, or to act on it (a turn or continue, or another command). */
export type OpenMode = 'read' | 'turn' | 'command';

/** Builds the agent of one open session. */
export type AgentFactory = (scope: { userId: string }) => Agent | Promise<Agent>;

/** The sessions of one instance. */
export class SessionHost {
  readonly #sessions = new Map<string, HostedSession>();
  readonly #opening = new Map<string, Promise<HostedSession>>();
  readonly owners = new OwnerCache();

  constructor(
    private readonly factory: AgentFactory,
    private readonly limits: { idleTimeoutMs: number; maxOpenSessions: number },
  ) {}

  /** How many sessions are held (or being opened) here. */
  get size(): number {
    return this.#sessions.size + this.#opening.size;
  }

  /** The agent of a user, for a request that needs its storage only; shut down by `use`. */
  async withAgent<T>(userId: string, use: (agent: Agent) => Promise<T>): Promise<T> {
    const agent = await this.#agent(userId);
    try {
      return await use(agent);
    } finally {
      await agent.shutdown();
    }
  }

  /** Creates a session for `userId`. */
  async create(userId: string, config: SessionConfig | undefined): Promise<HostedSession> {
    this.#assertRoom();
    const agent = await this.#agent(userId);
    try {
      const session = await agent.newSession(config);
      this.owners.set(session.id, userId);
      await agent._sessionStorage?.saveEvent(session.id, ownerEvent(userId));
      return this.#host(agent, session, userId);
    } catch (error) {
      await agent.shutdown();
      throw error;
    }
  }

  /** The copy held here of a session `userId` owns, if any. */
  held(userId: string, sessionId: string): HostedSession | null {
    const hosted = this.#sessions.get(sessionId);
    if (!hosted || hosted.ended) return null;
    if (hosted.owner !== userId) throw Errors.sessionNotFound(sessionId);
    return hosted;
  }

  /**
   * The session, held here (opened if need be). With `mode` `'read'`, `null` when another
   * instance holds it (the caller reads it from storage).
   */
  async open(userId: string, sessionId: string, mode: OpenMode): Promise<HostedSession | null> {
    const hosted = this.held(userId, sessionId);
    if (hosted) return hosted;
    const pending = this.#opening.get(sessionId);
    if (pending) {
      await pending.catch(() => {});
      return this.open(userId, sessionId, mode);
    }
    this.#assertRoom();
    const opening = this.#openHere(userId, sessionId, mode);
    this.#opening.set(sessionId, opening);
    try {
      return await opening;
    } catch (error) {
      if (mode === 'read' && AgentError.isInstance(error) && error.code === 'SESSION_LOCKED') return null;
      throw error;
    } finally {
      this.#opening.delete(sessionId);
    }
  }

  /** Releases every session held here (as closed pages do). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.release()));
  }

  async #openHere(userId: string, sessionId: string, mode: OpenMode): Promise<HostedSession> {
    const agent = await this.#agent(userId);
    try {
      const storage = agent._sessionStorage;
      if (!(await this.owners.owns(userId, sessionId, storage))) throw Errors.sessionNotFound(sessionId);
      let session;
      try {
        session = await agent.resumeSession(sessionId, { ifLocked: 'reject' });
      } catch (error) {
        if (!AgentError.isInstance(error) || error.code !== 'SESSION_LOCKED' || mode === 'read') throw error;
        // A new turn or continue: refused (TURN_BUSY) while the holder runs a turn, never stealing
        // it. A lock that records turns decides as it is taken; with another, the history tells.
        const lock = agent._sessionLock;
        if (mode === 'turn' && lock && isTurnAwareLock(lock)) session = await agent._resumeUnlessTurnRuns(sessionId);
        else {
          if (mode === 'turn') {
            const events = (await storage?.loadSession(sessionId)) ?? [];
            if (findInterruptedTurn(events, () => '') !== null) throw Errors.turnBusy();
          }
          session = await agent.resumeSession(sessionId, { ifLocked: 'steal' });
        }
      }
      return this.#host(agent, session, userId);
    } catch (error) {
      await agent.shutdown();
      throw error;
    }
  }

  #host(agent: Agent, session: HostedSession['session'], userId: string): HostedSession {
    const hosted: HostedSession = new HostedSession(agent, session, userId, {
      idleTimeoutMs: this.limits.idleTimeoutMs,
      onEnded: () => {
        if (this.#sessions.get(session.id) === hosted) this.#sessions.delete(session.id);
      },
    });
    if (!hosted.ended) this.#sessions.set(session.id, hosted);
    return hosted;
  }

  async #agent(userId: string): Promise<Agent> {
    try {
      return await this.factory({ userId });
    } catch (error) {
      if (AgentError.isInstance(error)) throw error;
      throw Errors.internal('the agent factory failed', error);
    }
  }

  #assertRoom(): void {
    if (this.size >= this.limits.maxOpenSessions) {
      throw ServerErrors.serverBusy(this.limits.maxOpenSessions);
    }
  }
}

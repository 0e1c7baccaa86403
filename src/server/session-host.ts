/**
 * `SessionHost`: the sessions this instance holds, by id, and the rules for opening one.
 *
 * - A new session is created by the agent the factory builds for its user, and its owner is
 *   recorded in it.
 * - Any other request first checks the owner (an unknown session and another user's session are
 *   the same `SESSION_NOT_FOUND`), then uses the copy held here, or opens one: a resume that
 *   takes the session's lock only when no one holds it. A copy that is ending here (released,
 *   closed) is waited for, then the session is opened again.
 * - When another instance holds it, a read gets the stored state and a command takes it over (a
 *   steal: the holder's later writes are fenced out) — except a new turn or a continue while a
 *   turn runs there, `TURN_BUSY`. "A turn runs there" is what the lease says, when the lock
 *   records turns (PostgreSQL), decided as it is taken; else the stored history (a
 *   `turn_started` marker with no `turn_ended` after it).
 * - Every held session takes a place in the {@link Room}, reserved before anything is awaited.
 * - Once `shutdown` is called, nothing new opens here (`SERVER_BUSY`); running turns get a while
 *   to end, then are interrupted, and every session is released.
 * @module
 */
import type { Agent } from '../agent.js';
import { AgentError, Errors } from '../errors.js';
import { findInterruptedTurn } from '../persistence/interrupted-turn.js';
import { serverPort } from '../runtime/server-port.js';
import { isSettlingLock, isTurnAwareLock } from '../ports/session-lock.js';
import type { SessionConfig } from '../types.js';
import { HostedSession } from './hosted-session.js';
import { asAgentError } from './public-error.js';
import { recoverTurn } from './recovery.js';
import { ServerErrors } from './http.js';
import type { ErrorContext } from './options.js';
import { OwnerCache, ownerEvent } from './ownership.js';
import { Room, type RoomPlace } from './room.js';

/** What a request needs of a session: to read it, or to act on it (a turn or continue, or another command). */
export type OpenMode = 'read' | 'turn' | 'command';

/** Builds the agent of one open session. */
export type AgentFactory = (scope: { userId: string }) => Agent | Promise<Agent>;

/** How many times a request waits for the session's copy here to end before it gives up. */
const MAX_OPEN_ATTEMPTS = 8;

/** The sessions of one instance. */
export class SessionHost {
  readonly #sessions = new Map<string, HostedSession>();
  readonly #opening = new Map<string, Promise<HostedSession>>();
  #shuttingDown: Promise<void> | null = null;
  readonly owners = new OwnerCache();
  /**
   * The places of this instance: one per held session, and one per follower of a session held
   * elsewhere (`room.reserve(userId)` before the follower's first await; `free()` when it ends).
   */
  readonly room: Room;

  constructor(
    private readonly factory: AgentFactory,
    private readonly limits: {
      idleTimeoutMs: number;
      maxOpenSessions: number;
      maxOpenSessionsPerUser: number;
      maxStreamBufferBytes: number;
      reportError?: (error: AgentError, context: ErrorContext) => void;
      recovery?: { maxAttempts: number } | null;
    },
  ) {
    this.room = new Room(limits);
  }

  /** Whether this instance recovers the turns of instances that stopped (`recovery` is on). */
  get recovers(): boolean {
    return Boolean(this.limits.recovery);
  }

  /** Whether `shutdown` was called: new sessions and turns are refused. */
  get closing(): boolean {
    return this.#shuttingDown !== null;
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

  /** Creates a session for `userId` (with the id `id` when given: a `/chat` id). */
  async create(userId: string, config: SessionConfig | undefined, id?: string): Promise<HostedSession> {
    this.#assertOpen();
    const place = this.room.reserve(userId);
    let agent: Agent | null = null;
    try {
      agent = await this.#agent(userId);
      const session =
        id === undefined ? await agent.newSession(config) : await agent._newSession(config ?? {}, id);
      this.owners.set(session.id, userId);
      await serverPort(agent).storage?.saveEvent(session.id, ownerEvent(userId));
      return this.#host(agent, session, userId, place);
    } catch (error) {
      place.free();
      await agent?.shutdown();
      throw error;
    }
  }

  /** The copy held here of a session `userId` owns, if any (not one that is ending). */
  held(userId: string, sessionId: string): HostedSession | null {
    const hosted = this.#sessions.get(sessionId);
    if (!hosted || hosted.ending !== null) return null;
    if (hosted.owner !== userId) throw Errors.sessionNotFound(sessionId);
    return hosted;
  }

  /**
   * The session, held here (opened if need be). With `mode` `'read'`, `null` when another
   * instance holds it (the caller reads it from storage), or when this instance is shutting down.
   */
  async open(userId: string, sessionId: string, mode: OpenMode): Promise<HostedSession | null> {
    for (let attempt = 0; attempt < MAX_OPEN_ATTEMPTS; attempt++) {
      const hosted = this.#sessions.get(sessionId);
      if (hosted) {
        if (hosted.owner !== userId) throw Errors.sessionNotFound(sessionId);
        if (hosted.ending === null) return hosted;
        // Released or closed here right now: once that has ended, the session opens again.
        await hosted.ending;
        continue;
      }
      const pending = this.#opening.get(sessionId);
      if (pending) {
        await pending.catch(() => {});
        continue;
      }
      if (this.closing) {
        if (mode === 'read') return null;
        throw ServerErrors.shuttingDown();
      }
      const place = this.room.reserve(userId);
      const opening = this.#openHere(userId, sessionId, mode, place);
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
    throw Errors.sessionBusy();
  }

  /**
   * The session for a command that names `turnId` (a cancel, an approval decision): held here
   * (opened if need be) when that turn is the session's running or interrupted one, else `null`
   * — a stale command, which changes nothing and takes nothing over. A copy held here decides
   * for itself; otherwise the stored history says which turn is open.
   */
  async openForTurn(userId: string, sessionId: string, turnId: string): Promise<HostedSession | null> {
    if (this.held(userId, sessionId) === null) {
      const open = await this.withAgent(userId, async (agent) => {
        const storage = serverPort(agent).storage;
        if (!(await this.owners.owns(userId, sessionId, storage))) throw Errors.sessionNotFound(sessionId);
        const events = (await storage?.loadSession(sessionId)) ?? [];
        return findInterruptedTurn(events, () => '')?.turnId ?? null;
      });
      if (open !== turnId) return null;
    }
    return this.open(userId, sessionId, 'command');
  }

  /**
   * Closes the session by its full close path (`session_end`, memory extraction): a copy that
   * was ending another way (an idle release) is waited for and the session opened again.
   */
  async close(userId: string, sessionId: string): Promise<void> {
    for (let attempt = 0; attempt < MAX_OPEN_ATTEMPTS; attempt++) {
      const hosted = (await this.open(userId, sessionId, 'command'))!;
      if (await hosted.close()) return;
    }
    throw Errors.sessionBusy();
  }

  /** Releases every session held here (as closed pages do). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => s.release()));
  }

  /**
   * Stops this instance: from now on nothing opens here; running turns get `timeoutMs` to end,
   * then are interrupted (left for another instance to recover); every session is released and
   * its lock given back. Idempotent.
   */
  shutdown(timeoutMs: number): Promise<void> {
    this.#shuttingDown ??= (async () => {
      await Promise.allSettled([...this.#opening.values()]);
      const running = [...this.#sessions.values()].flatMap((s) => (s.running ? [s.running.result] : []));
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(running),
        new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
      const sessions = [...this.#sessions.values()];
      await Promise.all(sessions.map((s) => (s.running ? s.interrupt() : s.release())));
      // A lock whose release is a statement in flight: given back before this resolves, so a
      // process that exits right after has not left its leases to run out.
      const locks = new Set(sessions.map((s) => s.server.lock));
      await Promise.all([...locks].map((lock) => (lock && isSettlingLock(lock) ? lock.releasesSettled() : undefined)));
    })();
    return this.#shuttingDown;
  }

  async #openHere(
    userId: string,
    sessionId: string,
    mode: OpenMode,
    place: RoomPlace,
  ): Promise<HostedSession> {
    let agent: Agent | null = null;
    try {
      agent = await this.#agent(userId);
      const storage = serverPort(agent).storage;
      if (!(await this.owners.owns(userId, sessionId, storage))) throw Errors.sessionNotFound(sessionId);
      let session;
      try {
        session = await agent.resumeSession(sessionId, { ifLocked: 'reject' });
      } catch (error) {
        if (!AgentError.isInstance(error) || error.code !== 'SESSION_LOCKED' || mode === 'read') throw error;
        // A new turn or continue: refused (TURN_BUSY) while the holder runs a turn, never stealing
        // it. A lock that records turns decides as it is taken; with another, the history tells.
        const lock = serverPort(agent).lock;
        if (mode === 'turn' && lock && isTurnAwareLock(lock)) session = await agent._resumeUnlessTurnRuns(sessionId);
        else {
          if (mode === 'turn') {
            const events = (await storage?.loadSession(sessionId)) ?? [];
            if (findInterruptedTurn(events, () => '') !== null) throw Errors.turnBusy();
          }
          session = await agent.resumeSession(sessionId, { ifLocked: 'steal' });
        }
      }
      const hosted = this.#host(agent, session, userId, place, false);
      // Shown to other requests only once its cut-off turn goes on: a state read in between would
      // show no running turn, and settle the turns that clients wait for as lost.
      await this.#recover(hosted);
      if (!hosted.ended) this.#sessions.set(session.id, hosted);
      return hosted;
    } catch (error) {
      place.free();
      await agent?.shutdown();
      throw error;
    }
  }

  /**
   * A session just opened here whose turn was cut off (its instance stopped): the turn goes on
   * here before the request is answered. A failed recovery is reported, and leaves the turn
   * interrupted for the next request or sweep.
   */
  async #recover(hosted: HostedSession): Promise<void> {
    const recovery = this.limits.recovery;
    if (!recovery) return;
    try {
      const turn = await recoverTurn(hosted.session, hosted.server, recovery.maxAttempts);
      if (turn) hosted.track(turn, true);
    } catch (error) {
      this.limits.reportError?.(asAgentError(error), { route: 'recovery', userId: hosted.owner, sessionId: hosted.id });
    }
  }

  /** Holds `session` here; `listed`: other requests find it at once (else the caller lists it). */
  #host(
    agent: Agent,
    session: HostedSession['session'],
    userId: string,
    place: RoomPlace,
    listed = true,
  ): HostedSession {
    const hosted: HostedSession = new HostedSession(agent, session, userId, {
      idleTimeoutMs: this.limits.idleTimeoutMs,
      onError: (error) => this.limits.reportError?.(error, { route: 'turns', userId, sessionId: session.id }),
      maxStreamBufferBytes: this.limits.maxStreamBufferBytes,
      onEnded: () => {
        if (this.#sessions.get(session.id) === hosted) this.#sessions.delete(session.id);
        place.free();
      },
    });
    if (listed && !hosted.ended) this.#sessions.set(session.id, hosted);
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

  #assertOpen(): void {
    if (this.closing) throw ServerErrors.shuttingDown();
  }
}

/**
 * `Agent`: the handle `build()` returns. It owns the root actor (the Agent machine, whose
 * children are the Session and Turn machines) and the immutable registries, and opens one
 * session at a time.
 * @module
 */
import type { Actor } from 'xstate';
import type { agentMachine } from '../machines/agent.machine.js';
import { AgentError, describeError } from './errors.js';
import * as Errors from './error-constructors.js';
import { generateId } from './ids.js';
import { loadSessionForResume } from './persistence/resume.js';
import type { SessionInput } from '../machines/session.machine.js';
import type { LockLease, LockMode, SessionLock, TurnAwareLock } from './ports/session-lock.js';
import type { SessionStorage } from './ports/storage.js';
import type { AgentServices } from './runtime/agent-services.js';
import { showInterruptedTurn } from './runtime/interrupted-turn.js';
import { TIMED_OUT, withTimeout } from './timeout.js';
import { SessionChangeFeed, type SessionChange } from './sync/session-change-feed.js';
// The class alone, not the rxjs barrel (see `src/events/channel.ts`).
import { Observable } from 'rxjs/internal/Observable';
import { SessionScope } from './runtime/session-scope.js';
import { asRuntimeError, createAgentActor } from './runtime/wire-machines.js';
import { Session } from './session.js';
import { SessionConfigSchema, type SessionConfig } from './types.js';
import { parseInput } from './validate.js';
import * as z from 'zod/mini';

const SessionIdSchema = z.string().check(z.minLength(1));

const ResumeOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    ifLocked: z.optional(z.enum(['reject', 'wait', 'steal'])),
    signal: z.optional(
      z.custom<AbortSignal>((value) => value instanceof AbortSignal, 'must be an AbortSignal'),
    ),
  }))();

/** Options of `agent.resumeSession()`. */
export interface ResumeSessionOptions {
  /**
   * When another tab or `Agent` holds the session: `'reject'` (default) with `SESSION_LOCKED`,
   * `'wait'` until it is released (or `signal` aborts), or `'steal'` it (the other side emits
   * `session_lock_lost`, cancels its turn and closes).
   */
  ifLocked?: 'reject' | 'wait' | 'steal';
  /** Aborts a `'wait'`. */
  signal?: AbortSignal;
}

const LOCK_MODES: Record<NonNullable<ResumeSessionOptions['ifLocked']>, LockMode> = {
  reject: 'ifAvailable',
  wait: 'wait',
  steal: 'steal',
};

/** A session's write permission: its lock lease and writer epoch (each when there is one). */
interface SessionWriter {
  lease: LockLease | null;
  epoch: number | null;
}

const NO_WRITER: SessionWriter = { lease: null, epoch: null };

/** The Agent machine's actor type. */
export type AgentActor = Actor<typeof agentMachine>;

/** A built agent. Create it with `AgentBuilder.build()`. */
export class Agent {
  /** The root actor (Agent machine): inspect it or subscribe to it; do not send to it. */
  readonly actor: AgentActor;
  readonly #services: AgentServices;
  readonly #sessions = new Map<string, SessionScope>();
  /** Errors with no session to report to (e.g. a plugin failing at shutdown). */
  readonly #unowned: AgentError[] = [];
  #shutdown: Promise<void> | null = null;
  readonly #changes: SessionChangeFeed;

  /** @internal — use `AgentBuilder.build()`. */
  constructor(services: AgentServices) {
    this.#services = services;
    // Without a storage no other tab shares these sessions: a namespace nobody else uses.
    const namespace = services.sessionStorage
      ? (services.sessionStorage.namespace ?? 'default')
      : `unshared-${generateId()}`;
    this.#changes = new SessionChangeFeed({ namespace });
    this.actor = createAgentActor(
      {
        lookup: (sessionId) => {
          const scope = this.#sessions.get(sessionId);
          if (!scope) throw new Error(`no open session '${sessionId}'`);
          return scope;
        },
        shutdownPlugins: async () => {
          // Bounded like a hook: a plugin that never finishes must not hang agent.shutdown().
          this.#unowned.push(...(await services.plugins.shutdown()));
          // Tool sources close after the plugins (a plugin's shutdown may still call a tool),
          // each bounded by `toolSourceTimeoutMs`.
          this.#unowned.push(...(await services.toolSources.close()));
        },
        reportUnowned: (error) => this.#unowned.push(error),
      },
      services.config.inspect ? { inspect: services.config.inspect } : {},
    ) as AgentActor;
    // An actor that errors with no error observer rethrows globally; ours never should, but a
    // bug must not crash the host page.
    this.actor.subscribe({
      error: (error) => this.#unowned.push(asRuntimeError(error, 'the agent actor')),
    });
    this.actor.start();
  }

  /**
   * What the other tabs (and other agents on the same storage) do to sessions: `appended` after
   * their writes, `locked` / `released` as they open and close one, `deleted` when they say so.
   * This agent's own changes are not in it. Completes at `shutdown()`.
   * @example
   * agent.sessionChanges.subscribe(({ sessionId, kind }) => kind !== 'locked' && refreshList(sessionId));
   */
  get sessionChanges(): Observable<SessionChange> {
    const { sessionStorage, sessionLock } = this.#services;
    // Other processes' changes come from the storage's and the lock's own feeds (e.g. over
    // PostgreSQL). Each feed joins the subscriber, which ends them all when it ends.
    return new Observable((subscriber) => {
      this.#changes.changes.subscribe(subscriber);
      sessionStorage?.changes?.subscribe(subscriber);
      sessionLock?.changes?.subscribe(subscriber);
    });
  }

  /**
   * @internal The agent's services and its open session's scope, for `runtime/server-port.ts`
   * alone (the server entry's way in, kept out of every agent's bundle).
   */
  _internals(): [AgentServices, SessionScope | undefined] {
    return [this.#services, this.#sessions.values().next().value];
  }

  /**
   * Failures that no session stream could take: plugin shutdown errors, crashed actors, and late
   * reports of a step a cancel had already stopped (nothing follows a turn's terminal event).
   */
  get unreportedErrors(): readonly AgentError[] {
    return this.#unowned;
  }

  /**
   * Opens a new session. Rejects `SESSION_BUSY` while another session (or its still-running
   * turn) is alive, `MODEL_NOT_SUPPORTED` for an unknown model, `INVALID_INPUT` for bad config.
   */
  newSession(config: SessionConfig = {}): Promise<Session> {
    return this._newSession(config, generateId());
  }

  /** @internal A new session with a given id (the server's `/chat` routes: the chat id is the session's). */
  async _newSession(config: SessionConfig, id: string): Promise<Session> {
    const parsed = parseInput(SessionConfigSchema, config, 'sessionConfig');
    this.#assertSlotFree();
    const modelId = parsed.modelId ?? this.#services.config.defaultModel;
    const { provider, model } = this.#resolveModel(modelId);
    const writer = this.#claims() ? await this.#claim(id, 'ifAvailable') : NO_WRITER;
    try {
      this.#assertSlotFree();
      const scope = new SessionScope(id, this.#services, provider, model, { ...parsed, modelId }, [], (e) =>
        this.#unowned.push(e),
      );
      return await this.#open(scope, { resumed: false, turnCount: 0, checkpointTurn: 0 }, writer);
    } catch (error) {
      writer.lease?.release();
      throw error;
    }
  }

  /**
   * Reopens a stored session: its history, counters and config are restored and memories
   * reloaded; `session_start` does not fire. A turn a reload cut off is in
   * `session.interruptedTurn`. Rejects `SESSION_NOT_FOUND` when it is unknown or no
   * `SessionStorage` is registered, `SESSION_LOCKED` when another tab holds it (see `ifLocked`),
   * `SESSION_BUSY` like `newSession`.
   * @example
   * const session = await agent.resumeSession(id, { ifLocked: 'steal' });
   */
  async resumeSession(sessionId: string, options: ResumeSessionOptions = {}): Promise<Session> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const opts = parseInput(ResumeOptionsSchema, options, 'options');
    return this.#reopen(id, () => this.#claim(id, LOCK_MODES[opts.ifLocked ?? 'reject'], opts.signal));
  }

  /**
   * @internal For `youyou-agent/server`, with a lock that records turns (`TurnAwareLock`):
   * resumes the session, taking it over from an instance that holds it idle, but `TURN_BUSY`
   * while that instance's live lease runs a turn — decided as the lease is taken, so the
   * holder's turn is never cancelled.
   */
  _resumeUnlessTurnRuns(sessionId: string): Promise<Session> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    const lock = this.#services.sessionLock as TurnAwareLock;
    return this.#reopen(id, () => this.#claim(id, 'steal', undefined, () => lock.acquireUnlessTurnRuns(id)));
  }

  async #reopen(id: string, claim: () => Promise<SessionWriter>): Promise<Session> {
    this.#assertSlotFree();
    const storage = this.#services.sessionStorage;
    if (!storage) throw Errors.sessionNotFound(id);
    // The writer is claimed before the events are read: whatever the previous writer stores
    // after this is refused, so nothing it writes can land behind this session's back.
    const writer = this.#claims() ? await claim() : NO_WRITER;
    try {
      return await this.#resume(id, storage, writer);
    } catch (error) {
      writer.lease?.release();
      throw error;
    }
  }

  async #resume(
    id: string,
    storage: NonNullable<AgentServices['sessionStorage']>,
    writer: SessionWriter,
  ): Promise<Session> {
    const { config, clock } = this.#services;
    const replayed = await loadSessionForResume(storage, id, { timeoutMs: config.storageTimeoutMs, clock });
    this.#assertSlotFree(); // loading is async: another session may have opened meanwhile
    const modelId = replayed.config?.modelId ?? this.#services.config.defaultModel;
    const { provider, model } = this.#resolveModel(modelId);
    const sessionConfig = { ...(replayed.config ?? {}), modelId };
    const scope = new SessionScope(
      id,
      this.#services,
      provider,
      model,
      sessionConfig,
      replayed.messages,
      (e) => this.#unowned.push(e),
      replayed.events,
    );
    if (replayed.interrupted) showInterruptedTurn(scope, replayed.interrupted);
    const { turnCount } = replayed;
    const interval = this.#services.config.memory?.checkpointInterval ?? 1;
    // Sessions stored before checkpoints were recorded had them at every interval-th turn.
    const checkpointTurn = replayed.checkpointTurn ?? turnCount - (turnCount % interval);
    return this.#open(scope, { resumed: true, turnCount, checkpointTurn }, writer);
  }

  /** Whether opening a session takes a lock or claims a writer epoch (else it opens at once). */
  #claims(): boolean {
    const { sessionLock, sessionStorage } = this.#services;
    return sessionLock !== null || typeof sessionStorage?.claimWriter === 'function';
  }

  /**
   * Takes the session's lock (when a `SessionLock` is registered) and claims its writer epoch
   * (when the storage fences writers). A lock that does not answer in `storageTimeoutMs` (except
   * a `'wait'`, which the caller's signal bounds) counts as held.
   */
  async #claim(
    id: string,
    mode: LockMode,
    signal?: AbortSignal,
    acquire?: () => Promise<LockLease | null>,
  ): Promise<SessionWriter> {
    const { sessionLock, sessionStorage, config, clock } = this.#services;
    let lease: LockLease | null = null;
    if (sessionLock) {
      const acquiring = Promise.resolve(acquire ? acquire() : sessionLock.acquire(id, mode, signal));
      const answer =
        mode === 'wait'
          ? await acquiring
          : await withTimeout(acquiring, config.storageTimeoutMs, undefined, clock);
      if (answer === TIMED_OUT) {
        // A late grant must not keep the lock forever.
        void acquiring.then(
          (late) => late?.release(),
          () => {},
        );
        throw Errors.sessionLocked(id);
      }
      if (answer === null) throw acquire ? Errors.turnBusy() : Errors.sessionLocked(id);
      lease = answer;
    }
    try {
      if (typeof sessionStorage?.claimWriter !== 'function') return { lease, epoch: null };
      const epoch = await withTimeout(
        Promise.resolve(sessionStorage.claimWriter(id)),
        config.storageTimeoutMs,
        undefined,
        clock,
      );
      if (epoch === TIMED_OUT)
        throw Errors.storage(`claiming session '${id}' did not settle within ${config.storageTimeoutMs}ms`);
      if (typeof epoch !== 'number')
        throw Errors.storage(`claimWriter('${id}') returned ${String(epoch)}, not a number`);
      return { lease, epoch };
    } catch (error) {
      lease?.release();
      if (AgentError.isInstance(error)) throw error;
      throw Errors.storage(`claiming session '${id}' failed: ${describeError(error)}`, error);
    }
  }

  /**
   * Shuts the agent down: cancels a running turn, runs the session's full close path
   * (`session_end`, memory extraction), then the plugins' `shutdown()` in reverse order, then
   * every tool source's `close()`. Idempotent.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= new Promise<void>((resolve) => {
      const sub = this.actor.subscribe({
        next: (snapshot) => {
          if (snapshot.status !== 'active') done();
        },
        complete: () => done(),
        error: () => done(),
      });
      const done = () => {
        sub.unsubscribe();
        this.#changes.close();
        resolve();
      };
      this.actor.send({ type: 'SHUTDOWN' });
      if (this.actor.getSnapshot().status !== 'active') done();
    });
    return this.#shutdown;
  }

  #assertSlotFree(): void {
    const snapshot = this.actor.getSnapshot();
    if (snapshot.status !== 'active' || snapshot.matches('shuttingDown') || snapshot.matches('stopped')) {
      throw Errors.sessionClosed();
    }
    if (!snapshot.matches('ready')) throw Errors.sessionBusy();
  }

  #resolveModel(modelId: string) {
    try {
      return this.#services.providers.resolve(modelId);
    } catch {
      throw Errors.modelNotSupported(modelId);
    }
  }

  async #open(
    scope: SessionScope,
    counters: Pick<SessionInput, 'resumed' | 'turnCount' | 'checkpointTurn'>,
    writer: SessionWriter,
  ): Promise<Session> {
    this.#sessions.set(scope.id, scope);
    scope.writes.writerEpoch = writer.epoch;
    scope.lease = writer.lease;
    scope.onStored = () => this.#changes.post({ sessionId: scope.id, kind: 'appended' });
    if (writer.lease) this.#changes.post({ sessionId: scope.id, kind: 'locked' });
    void scope.closed.then(() => {
      this.#sessions.delete(scope.id);
      if (writer.lease) {
        writer.lease.release();
        this.#changes.post({ sessionId: scope.id, kind: 'released' });
      }
    });
    const { config } = this.#services;
    this.actor.send({
      type: 'OPEN',
      session: {
        sessionId: scope.id,
        ...counters,
        limits: {
          maxRetries: config.retry.maxRetries,
          maxToolCallsPerTurn: config.maxToolCallsPerTurn,
          maxCompactionFailures: config.compaction.maxConsecutiveFailures,
          checkpointInterval:
            config.memory && this.#services.memoryStorage ? config.memory.checkpointInterval : null,
        },
      },
    });
    const ref = this.actor.getSnapshot().children.session;
    if (!ref) throw Errors.sessionBusy();
    scope.onLockLost = (by) => {
      if (ref.getSnapshot().status === 'active') ref.send({ type: 'LOCK_LOST', by });
    };
    void writer.lease?.lost.then(() => scope.onLockLost?.('steal'));
    await new Promise<void>((resolve) => {
      const check = () => {
        const s = ref.getSnapshot();
        if (s.status !== 'active' || !s.matches({ open: 'opening' })) {
          sub.unsubscribe();
          resolve();
        }
      };
      const sub = ref.subscribe({ next: check, complete: check, error: check });
      check();
    });
    scope.events.opened();
    return new Session(scope, ref);
  }
}

/**
 * `Agent`: the handle `build()` returns. It owns the root actor (the Agent machine, whose
 * children are the Session and Turn machines) and the immutable registries, and opens one
 * session at a time.
 * @module
 */
import type { Actor } from 'xstate';
import type { agentMachine } from '../machines/agent.machine.js';
import { AgentError, Errors } from './errors.js';
import { generateId } from './ids.js';
import { loadSessionForResume } from './persistence/resume.js';
import type { SessionInput } from '../machines/session.machine.js';
import type { AgentServices } from './runtime/agent-services.js';
import { SessionScope } from './runtime/session-scope.js';
import { asRuntimeError, createAgentActor } from './runtime/wire-machines.js';
import { Session } from './session.js';
import { SessionConfigSchema, type SessionConfig } from './types.js';
import { parseInput } from './validate.js';
import * as z from 'zod/mini';

const SessionIdSchema = z.string().check(z.minLength(1));

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

  /** @internal — use `AgentBuilder.build()`. */
  constructor(services: AgentServices) {
    this.#services = services;
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
  async newSession(config: SessionConfig = {}): Promise<Session> {
    const parsed = parseInput(SessionConfigSchema, config, 'sessionConfig');
    this.#assertSlotFree();
    const modelId = parsed.modelId ?? this.#services.config.defaultModel;
    const { provider, model } = this.#resolveModel(modelId);
    const scope = new SessionScope(
      generateId(),
      this.#services,
      provider,
      model,
      { ...parsed, modelId },
      [],
      (e) => this.#unowned.push(e),
    );
    return this.#open(scope, { resumed: false, turnCount: 0, checkpointTurn: 0 });
  }

  /**
   * Reopens a stored session: its history, counters and config are restored and memories
   * reloaded; `session_start` does not fire. Rejects `SESSION_NOT_FOUND` when it is unknown or
   * no `SessionStorage` is registered, `SESSION_BUSY` like `newSession`.
   */
  async resumeSession(sessionId: string): Promise<Session> {
    const id = parseInput(SessionIdSchema, sessionId, 'sessionId');
    this.#assertSlotFree();
    const storage = this.#services.sessionStorage;
    if (!storage) throw Errors.sessionNotFound(id);
    const replayed = await loadSessionForResume(storage, id);
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
    const { turnCount } = replayed;
    const interval = this.#services.config.memory?.checkpointInterval ?? 1;
    // Sessions stored before checkpoints were recorded had them at every interval-th turn.
    const checkpointTurn = replayed.checkpointTurn ?? turnCount - (turnCount % interval);
    return this.#open(scope, { resumed: true, turnCount, checkpointTurn });
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
  ): Promise<Session> {
    this.#sessions.set(scope.id, scope);
    void scope.closed.then(() => this.#sessions.delete(scope.id));
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

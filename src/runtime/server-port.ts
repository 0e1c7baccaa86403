/**
 * `serverPort(agent)`: what `youyou-agent/server` uses of an agent beyond its public API — its
 * storage, its tools' registration, and the ways out of its open session that no page takes —
 * so that the entry never reaches into the actors or the session's scope. Only the server
 * imports it, so no agent's bundle carries it.
 * @internal
 * @module
 */
import type { Agent } from '../agent.js';
import type { SessionLock } from '../ports/session-lock.js';
import type { SessionStorage } from '../ports/storage.js';
import type { SessionEventPayload } from '../types.js';
import { closeRequested } from '../session.js';

/** @internal The server's view of one agent and the session it holds. */
export interface AgentServerPort {
  /** The registered session storage, or `null`. */
  readonly storage: SessionStorage | null;
  /** The registered session lock, or `null`. */
  readonly lock: SessionLock | null;
  /** Whether `toolName` is a registered tool marked `mutating`. */
  isMutating(toolName: string): boolean;
  /** Whether `toolName` is a registered tool marked `idempotent`. */
  isIdempotent(toolName: string): boolean;
  /**
   * Releases the open session as a dropped page does (a running turn is cancelled; no
   * `session_end`, no memory extraction; the lock given back); resolves once it ended. A session
   * already closing goes its own way.
   */
  release(): Promise<void>;
  /**
   * Like `release`, but nothing more is stored first: a running turn stops without `turn_ended`,
   * left interrupted for whoever opens the session next.
   */
  interrupt(): Promise<void>;
  /**
   * Resolves once every write of the open session handed over so far is stored (or one has been
   * stuck for `storageTimeoutMs`); `false` when one was refused because another writer claimed it.
   */
  stored(): Promise<boolean>;
  /** Stores a record beside the open session's messages (in order with its other writes). */
  record(payload: SessionEventPayload): void;
}

/**
 * @internal The port of `agent` and the session open in it now (ask once the session is open).
 * @example
 * const port = serverPort(agent);
 * if (!(await port.stored())) throw Errors.turnBusy();
 */
export function serverPort(agent: Agent): AgentServerPort {
  const [services, scope] = agent._internals();
  const ref = agent.actor.getSnapshot().children.session;
  const end = async (halt: boolean) => {
    if (!scope) return;
    if (halt) {
      scope.writes.halt();
      scope.drafts.halt();
    }
    if (ref && !closeRequested(ref)) ref.send({ type: 'DROP' });
    await scope.closed;
  };
  return {
    storage: services.sessionStorage,
    lock: services.sessionLock,
    isMutating: (toolName) => services.tools.isMutating(toolName),
    isIdempotent: (toolName) => services.tools.tool(toolName)?.idempotent === true,
    release: () => end(false),
    interrupt: () => end(true),
    record: (payload) => scope?.record(payload),
    stored: async () => {
      if (!scope) return true;
      await scope.writes.drain();
      return !scope.writes.replaced;
    },
  };
}

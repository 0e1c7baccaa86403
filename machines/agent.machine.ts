/**
 * The Agent machine: the root of the actor system. `ready` (no session) ⇄ `sessionActive`
 * (invokes the one Session, id `session`) → `shuttingDown` → `stopped`. Sessions and their turns
 * are its children, so one `inspect` observer given to this root sees all three machines.
 *
 * The single-session guard is this machine's state: a session slot is free only in `ready`,
 * which `sessionActive` reaches only when the Session machine is done — closed **and** its turn
 * ended.
 * @module
 */
import { assertEvent, assign, fromPromise, sendTo, setup } from 'xstate';
import { sessionMachine, type SessionInput } from './session.machine.js';

/** Events the Agent machine accepts. */
export type AgentMachineEvent = { type: 'OPEN'; session: SessionInput } | { type: 'SHUTDOWN' };

/** Context: the active session's id and whether shutdown was asked for. */
export interface AgentContext {
  activeSessionId: string | null;
  shutdownRequested: boolean;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

const reportError = {
  type: 'reportAgentError',
  params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
} as const;

/** Agent machine: ready ⇄ sessionActive → shuttingDown → stopped. */
export const agentMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as AgentContext,
    events: {} as AgentMachineEvent,
    children: {} as { session: 'session'; shutdownPlugins: 'shutdownPlugins' },
  },
  actors: {
    session: sessionMachine,
    /** Plugins' `shutdown()` in reverse registration order (failures are reported, not thrown). */
    shutdownPlugins: fromPromise<void, void>(notProvided('shutdownPlugins')),
  },
  actions: {
    recordSession: assign(({ event }) => {
      assertEvent(event, 'OPEN');
      return { activeSessionId: event.session.sessionId };
    }),
    clearSession: assign({ activeSessionId: null }),
    requestShutdown: assign({ shutdownRequested: true }),
    shutDownSession: sendTo('session', { type: 'SHUTDOWN' }),
    /** Reports a session actor that crashed instead of closing. */
    reportAgentError: (_, _params: { error: unknown }) => {},
  },
  guards: {
    shutdownRequested: ({ context }) => context.shutdownRequested,
  },
}).createMachine({
  id: 'agent',
  context: { activeSessionId: null, shutdownRequested: false },
  initial: 'ready',
  states: {
    ready: {
      on: {
        OPEN: { target: 'sessionActive', actions: 'recordSession' },
        SHUTDOWN: { target: 'shuttingDown', actions: 'requestShutdown' },
      },
    },
    sessionActive: {
      invoke: {
        id: 'session',
        src: 'session',
        input: ({ event }) => {
          assertEvent(event, 'OPEN');
          return event.session;
        },
        onDone: [
          { guard: 'shutdownRequested', target: 'shuttingDown', actions: 'clearSession' },
          { target: 'ready', actions: 'clearSession' },
        ],
        onError: [
          { guard: 'shutdownRequested', target: 'shuttingDown', actions: ['clearSession', reportError] },
          { target: 'ready', actions: ['clearSession', reportError] },
        ],
      },
      on: {
        // Shutdown cancels the turn and runs the session's full close path, then the plugins'.
        SHUTDOWN: { actions: ['requestShutdown', 'shutDownSession'] },
      },
    },
    shuttingDown: {
      invoke: { id: 'shutdownPlugins', src: 'shutdownPlugins', onDone: 'stopped', onError: 'stopped' },
    },
    stopped: { type: 'final' },
  },
});

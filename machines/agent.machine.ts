/**
 * The Agent machine: the root of the actor system. `ready` (no session) ⇄ `sessionActive`
 * (invokes the one Session, id `session`) → `shuttingDown` → `stopped`. Sessions and their turns
 * are its children, so one `inspect` observer given to this root sees all three machines.
 *
 * The single-session guard is this machine's state: a session slot is free only in `ready`,
 * which `sessionActive` reaches only when the Session machine is done — closed **and** its
 * turn ended (seed §8 running_guard semantics).
 * @module
 */
import { assign, fromPromise, sendTo, setup } from 'xstate';
import { sessionMachine, type SessionInput } from './session.machine.js';

/** Events the Agent machine accepts. */
export type AgentMachineEvent = { type: 'OPEN'; session: SessionInput } | { type: 'SHUTDOWN' };

/** Context: the active session's id and whether shutdown was asked for. */
export interface AgentContext {
  activeSessionId: string | null;
  shutdownRequested: boolean;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

/** Agent machine: see DESIGN.md §3. */
export const agentMachine = setup({
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
        OPEN: {
          target: 'sessionActive',
          actions: assign({ activeSessionId: ({ event }) => event.session.sessionId }),
        },
        SHUTDOWN: { target: 'shuttingDown', actions: assign({ shutdownRequested: true }) },
      },
    },
    sessionActive: {
      invoke: {
        id: 'session',
        src: 'session',
        input: ({ event }) => {
          if (event.type !== 'OPEN') throw new Error(`sessionActive entered by ${event.type}`);
          return event.session;
        },
        onDone: [
          { guard: 'shutdownRequested', target: 'shuttingDown', actions: assign({ activeSessionId: null }) },
          { target: 'ready', actions: assign({ activeSessionId: null }) },
        ],
        onError: [
          {
            guard: 'shutdownRequested',
            target: 'shuttingDown',
            actions: [
              assign({ activeSessionId: null }),
              { type: 'reportAgentError', params: ({ event }) => ({ error: event.error }) },
            ],
          },
          {
            target: 'ready',
            actions: [
              assign({ activeSessionId: null }),
              { type: 'reportAgentError', params: ({ event }) => ({ error: event.error }) },
            ],
          },
        ],
      },
      on: {
        // Shutdown cancels the turn and runs the session's full close path, then the plugins'.
        SHUTDOWN: {
          actions: [assign({ shutdownRequested: true }), sendTo('session', { type: 'SHUTDOWN' })],
        },
      },
    },
    shuttingDown: {
      invoke: {
        id: 'shutdownPlugins',
        src: 'shutdownPlugins',
        onDone: 'stopped',
        onError: 'stopped',
      },
    },
    stopped: { type: 'final' },
  },
});

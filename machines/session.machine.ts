/**
 * The Session machine: one conversation. `idle` ⇄ `running` (invokes one Turn at a time) →
 * `closing` → `closed`. The three close paths of the seed's §8 table are its three ways out:
 * `CLOSE` (session.close()), `SHUTDOWN` (agent.shutdown(): cancel first) and `DROP` (the handle
 * was garbage-collected: no hooks, no memory extraction).
 * @module
 */
import { assign, fromPromise, sendTo, setup } from 'xstate';
import { turnMachine, type TurnInput } from './turn.machine.js';

/** What the Session machine starts with. */
export interface SessionInput {
  sessionId: string;
  /** A resumed session does not fire `session_start`. */
  resumed: boolean;
  /** Turns already taken (restored on resume). */
  turnCount: number;
}

/** How a session ended. */
export type CloseReason = 'close' | 'shutdown' | 'drop';

/** The outcome of a session. */
export interface SessionOutput {
  sessionId: string;
  reason: CloseReason;
}

/** Events the Session machine accepts. */
export type SessionMachineEvent =
  | { type: 'SEND'; turn: TurnInput }
  | { type: 'CANCEL' }
  | { type: 'CLOSE' }
  | { type: 'SHUTDOWN' }
  | { type: 'DROP' };

/** Context: ids and status only. */
export interface SessionContext {
  sessionId: string;
  resumed: boolean;
  turnCount: number;
  /** Set when a close path was asked for while a turn was running. */
  closeRequested: CloseReason | null;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

/** Input of `openSession` / `closeSession`. */
export interface SessionStepInput {
  sessionId: string;
  resumed: boolean;
}
/** Input of `closeSession`. */
export interface CloseSessionInput {
  sessionId: string;
  reason: 'close' | 'shutdown';
  turnCount: number;
}

/** Session machine: see DESIGN.md §3. */
export const sessionMachine = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionMachineEvent,
    output: {} as SessionOutput,
    children: {} as { openSession: 'openSession'; turn: 'turn'; closeSession: 'closeSession' },
  },
  actors: {
    /** `session_start` hook (new sessions only) and the `session_config` metadata. */
    openSession: fromPromise<void, SessionStepInput>(notProvided('openSession')),
    /** One turn. */
    turn: turnMachine,
    /** `session_end` hook, memory extraction (never blocks), drain the write queue. */
    closeSession: fromPromise<void, CloseSessionInput>(notProvided('closeSession')),
  },
  actions: {
    /** Reports a failure that has no turn to end (e.g. a crashed turn actor). */
    reportSessionError: (_, _params: { sessionId: string; error: unknown }) => {},
    /** Completes the session's event stream; the last thing a session does. */
    finishSession: (_, _params: { sessionId: string; reason: CloseReason }) => {},
  },
  guards: {
    dropRequested: ({ context }) => context.closeRequested === 'drop',
    closeRequested: ({ context }) => context.closeRequested !== null,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    sessionId: input.sessionId,
    resumed: input.resumed,
    turnCount: input.turnCount,
    closeRequested: null,
  }),
  initial: 'opening',
  output: ({ context }) => ({ sessionId: context.sessionId, reason: context.closeRequested ?? 'close' }),
  states: {
    opening: {
      invoke: {
        id: 'openSession',
        src: 'openSession',
        input: ({ context }) => ({ sessionId: context.sessionId, resumed: context.resumed }),
        onDone: 'idle',
        onError: {
          target: 'idle',
          actions: {
            type: 'reportSessionError',
            params: ({ context, event }) => ({ sessionId: context.sessionId, error: event.error }),
          },
        },
      },
      on: {
        CLOSE: { actions: assign({ closeRequested: 'close' }) },
        SHUTDOWN: { actions: assign({ closeRequested: 'shutdown' }) },
        DROP: { actions: assign({ closeRequested: 'drop' }) },
      },
    },
    idle: {
      always: [
        { guard: 'dropRequested', target: 'closed' },
        { guard: 'closeRequested', target: 'closing' },
      ],
      on: {
        SEND: {
          target: 'running',
          actions: assign({ turnCount: ({ context }) => context.turnCount + 1 }),
        },
        CLOSE: { target: 'closing', actions: assign({ closeRequested: 'close' }) },
        SHUTDOWN: { target: 'closing', actions: assign({ closeRequested: 'shutdown' }) },
        DROP: { target: 'closed', actions: assign({ closeRequested: 'drop' }) },
      },
    },
    running: {
      invoke: {
        id: 'turn',
        src: 'turn',
        input: ({ event }) => {
          // Only SEND enters `running`.
          if (event.type !== 'SEND') throw new Error(`running entered by ${event.type}`);
          return event.turn;
        },
        onDone: [
          { guard: 'dropRequested', target: 'closed' },
          { guard: 'closeRequested', target: 'closing' },
          { target: 'idle' },
        ],
        onError: [
          {
            guard: 'closeRequested',
            target: 'closing',
            actions: {
              type: 'reportSessionError',
              params: ({ context, event }) => ({ sessionId: context.sessionId, error: event.error }),
            },
          },
          {
            target: 'idle',
            actions: {
              type: 'reportSessionError',
              params: ({ context, event }) => ({ sessionId: context.sessionId, error: event.error }),
            },
          },
        ],
      },
      on: {
        CANCEL: { actions: sendTo('turn', { type: 'CANCEL' }) },
        // close() waits for the running turn; shutdown and a dropped handle cancel it first.
        CLOSE: { actions: assign({ closeRequested: 'close' }) },
        SHUTDOWN: {
          actions: [assign({ closeRequested: 'shutdown' }), sendTo('turn', { type: 'CANCEL' })],
        },
        DROP: { actions: [assign({ closeRequested: 'drop' }), sendTo('turn', { type: 'CANCEL' })] },
      },
    },
    closing: {
      // A later shutdown upgrades a pending close: both run the full close path.
      invoke: {
        id: 'closeSession',
        src: 'closeSession',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          reason: context.closeRequested === 'shutdown' ? 'shutdown' : 'close',
          turnCount: context.turnCount,
        }),
        onDone: 'closed',
        onError: {
          target: 'closed',
          actions: {
            type: 'reportSessionError',
            params: ({ context, event }) => ({ sessionId: context.sessionId, error: event.error }),
          },
        },
      },
    },
    closed: {
      type: 'final',
      entry: {
        type: 'finishSession',
        params: ({ context }) => ({
          sessionId: context.sessionId,
          reason: context.closeRequested ?? 'close',
        }),
      },
    },
  },
});

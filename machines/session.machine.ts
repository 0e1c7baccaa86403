/**
 * The Session machine: one conversation. `open` (`opening` → `idle` ⇄ `running`, which invokes
 * one Turn at a time) → `closing` → `closed`. The three ways out are handled once, on `open`:
 * `CLOSE` (session.close(): waits for a running turn), `SHUTDOWN` (agent.shutdown(): cancels it
 * first) and `DROP` (the handle was garbage-collected: cancel, then no hooks and no memory
 * extraction).
 *
 * The counters that decide what a turn does live here and flow through each turn: the turn count,
 * the turn of the last memory checkpoint, and the compaction breaker's count.
 * @module
 */
import { assertEvent, assign, fromPromise, sendTo, setup } from 'xstate';
import { turnMachine } from './turn.machine.js';
import type { TurnInput, TurnOutput } from './turn.types.js';

/** Limits from the agent's config that every turn of the session obeys. */
export interface SessionLimits {
  maxRetries: number;
  maxToolCallsPerTurn: number;
  /** Compaction failures in a row that open the breaker for the rest of the session. */
  maxCompactionFailures: number;
  /** Turns between memory checkpoints; `null` without memory. */
  checkpointInterval: number | null;
}

/** What the Session machine starts with. */
export interface SessionInput {
  sessionId: string;
  /** A resumed session does not fire `session_start`. */
  resumed: boolean;
  /** Turns already taken (restored on resume). */
  turnCount: number;
  /** The turn count at the last memory checkpoint (restored on resume). */
  checkpointTurn: number;
  limits: SessionLimits;
}

/**
 * How a session ended. `lock_lost`: another tab or agent took the session over, so like a
 * dropped handle it ends with no `session_end` and no memory extraction (the new owner carries on).
 */
export type CloseReason = 'close' | 'shutdown' | 'drop' | 'lock_lost';

/** Who took the session's lock away. */
export type LockLostBy = 'steal' | 'writer_replaced';

/** The outcome of a session. */
export interface SessionOutput {
  sessionId: string;
  reason: CloseReason;
}

/** Events the Session machine accepts. */
export type SessionMachineEvent =
  | {
      type: 'SEND';
      turnId: string;
      /** `continued`: the turn continues the interrupted one (it is not a new turn). */
      continued?: boolean;
      /** Repair rounds of the structured answer asked for; absent or `null` for none. */
      outputRepairs?: number | null;
      /** Whether a budget applies to the turn. */
      budgeted?: boolean;
      /** Whether a call of the turn may wait for a decision; absent: it may. */
      approvalsPossible?: boolean;
    }
  | { type: 'CANCEL' }
  | { type: 'CLOSE' }
  | { type: 'SHUTDOWN' }
  | { type: 'DROP' }
  | { type: 'LOCK_LOST'; by: LockLostBy };

/** Context: ids, counters and status only. */
export interface SessionContext extends SessionInput {
  /** The turn in `running`, `null` otherwise. */
  activeTurnId: string | null;
  compactionFailures: number;
  /** Set once a close path was asked for; a later shutdown upgrades a close. */
  closeRequested: CloseReason | null;
}

/** Input of `openSession`. */
export interface OpenSessionInput {
  sessionId: string;
  resumed: boolean;
}
/** Input of `closeSession`. */
export interface CloseSessionInput {
  sessionId: string;
  reason: 'close' | 'shutdown';
  turnCount: number;
}

const notProvided = (name: string) => () => Promise.reject(new Error(`actor '${name}' was not provided`));

/** The input of the turn a `SEND` starts: its id, its options, the limits, and the counters so far. */
function turnInput(context: SessionContext, send: Extract<SessionMachineEvent, { type: 'SEND' }>): TurnInput {
  const { limits } = context;
  return {
    turnId: send.turnId,
    outputRepairs: send.outputRepairs ?? null,
    budgeted: send.budgeted ?? false,
    approvalsPossible: send.approvalsPossible ?? true,
    sessionId: context.sessionId,
    maxRetries: limits.maxRetries,
    maxToolCallsPerTurn: limits.maxToolCallsPerTurn,
    compactionFailures: context.compactionFailures,
    maxCompactionFailures: limits.maxCompactionFailures,
    checkpointDue:
      limits.checkpointInterval !== null &&
      context.turnCount - context.checkpointTurn >= limits.checkpointInterval,
    continued: send.continued === true,
  };
}

const reportError = {
  type: 'reportSessionError',
  params: ({ context, event }: { context: SessionContext; event: { error: unknown } }) => ({
    sessionId: context.sessionId,
    error: event.error,
  }),
} as const;

/** Losing the lock: close without hooks, say so once, stop writing. */
const LOSE_LOCK = [
  { type: 'requestClose', params: { reason: 'lock_lost' } },
  {
    type: 'reportLockLost',
    params: ({ context, event }: { context: SessionContext; event: SessionMachineEvent }) => {
      assertEvent(event, 'LOCK_LOST');
      return { sessionId: context.sessionId, by: event.by };
    },
  },
] as const;

/** Session machine: `open` (opening → idle ⇄ running) → closing → closed. */
export const sessionMachine = /* @__PURE__ */ setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionMachineEvent,
    output: {} as SessionOutput,
    children: {} as { openSession: 'openSession'; turn: 'turn'; closeSession: 'closeSession' },
  },
  actors: {
    /** `session_config` metadata and `session_start` (new sessions only), memories loaded. */
    openSession: fromPromise<void, OpenSessionInput>(notProvided('openSession')),
    /** One turn. */
    turn: turnMachine,
    /** `session_end` hook, memory extraction (never blocks), drain pending writes. */
    closeSession: fromPromise<void, CloseSessionInput>(notProvided('closeSession')),
  },
  actions: {
    requestClose: assign((_, params: { reason: CloseReason }) => ({ closeRequested: params.reason })),
    beginTurn: assign(({ context, event }) => {
      assertEvent(event, 'SEND');
      // A continued turn was counted when it first started (its user message is stored).
      return { activeTurnId: event.turnId, turnCount: context.turnCount + (event.continued ? 0 : 1) };
    }),
    recordTurnOutcome: assign(({ context }, params: { output: TurnOutput }) => ({
      activeTurnId: null,
      compactionFailures: params.output.compactionFailures,
      checkpointTurn: params.output.checkpointed ? context.turnCount : context.checkpointTurn,
    })),
    clearTurn: assign({ activeTurnId: null }),
    cancelTurn: sendTo('turn', { type: 'CANCEL' }),
    /** Emits `session_lock_lost` and stops the session's writes (the new owner writes now). */
    reportLockLost: (_, _params: { sessionId: string; by: LockLostBy }) => {},
    /** Reports a failure that has no turn to end (e.g. a crashed turn actor). */
    reportSessionError: (_, _params: { sessionId: string; error: unknown }) => {},
    /** Completes the session's event stream; the last thing a session does. */
    finishSession: (_, _params: { sessionId: string; reason: CloseReason }) => {},
  },
  guards: {
    /** Closing with no hooks and no extraction: the handle was dropped or the lock was lost. */
    closeSilently: ({ context }) =>
      context.closeRequested === 'drop' || context.closeRequested === 'lock_lost',
    lockHeld: ({ context }) => context.closeRequested !== 'lock_lost',
    closeRequested: ({ context }) => context.closeRequested !== null,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({ ...input, activeTurnId: null, compactionFailures: 0, closeRequested: null }),
  initial: 'open',
  output: ({ context }) => ({ sessionId: context.sessionId, reason: context.closeRequested ?? 'close' }),
  states: {
    open: {
      initial: 'opening',
      on: {
        CLOSE: { actions: { type: 'requestClose', params: { reason: 'close' } } },
        SHUTDOWN: { actions: { type: 'requestClose', params: { reason: 'shutdown' } } },
        DROP: { actions: { type: 'requestClose', params: { reason: 'drop' } } },
        LOCK_LOST: { guard: 'lockHeld', actions: LOSE_LOCK },
      },
      states: {
        opening: {
          invoke: {
            id: 'openSession',
            src: 'openSession',
            input: ({ context }) => ({ sessionId: context.sessionId, resumed: context.resumed }),
            onDone: 'idle',
            onError: { target: 'idle', actions: reportError },
          },
        },
        idle: {
          // A close asked for while opening or running takes effect here.
          always: [
            { guard: 'closeSilently', target: '#session.closed' },
            { guard: 'closeRequested', target: '#session.closing' },
          ],
          on: { SEND: { target: 'running', actions: 'beginTurn' } },
        },
        running: {
          invoke: {
            id: 'turn',
            src: 'turn',
            input: ({ context, event }) => {
              assertEvent(event, 'SEND');
              return turnInput(context, event);
            },
            onDone: {
              target: 'idle',
              actions: { type: 'recordTurnOutcome', params: ({ event }) => ({ output: event.output }) },
            },
            onError: { target: 'idle', actions: ['clearTurn', reportError] },
          },
          on: {
            CANCEL: { actions: 'cancelTurn' },
            // close() waits for the running turn; shutdown and a dropped handle cancel it first.
            SHUTDOWN: { actions: [{ type: 'requestClose', params: { reason: 'shutdown' } }, 'cancelTurn'] },
            DROP: { actions: [{ type: 'requestClose', params: { reason: 'drop' } }, 'cancelTurn'] },
            LOCK_LOST: { guard: 'lockHeld', actions: [...LOSE_LOCK, 'cancelTurn'] },
          },
        },
      },
    },
    closing: {
      invoke: {
        id: 'closeSession',
        src: 'closeSession',
        input: ({ context }) => ({
          sessionId: context.sessionId,
          reason: context.closeRequested === 'shutdown' ? 'shutdown' : 'close',
          turnCount: context.turnCount,
        }),
        onDone: 'closed',
        onError: { target: 'closed', actions: reportError },
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

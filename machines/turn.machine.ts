/**
 * The Turn machine: one user message → model responses and tool batches → one terminal outcome.
 * Its states are the steps of the turn loop. Each step's work is a function in
 * `src/runtime/steps/`, run by the turn's one step runner (the child `steps`, supplied with
 * `machine.provide()`; here a placeholder that fails every step, so the chart stays pure and
 * tests drive it with a fake). A step state tells the runner to run its step on entry and to
 * stop it on exit; the runner answers `<step>.done` with the step's output or `<step>.error`
 * with what it threw, and drops the answer of a step that was stopped. One long-lived child
 * instead of an invoked actor per step: an actor per step made most of the machine's cost and
 * garbage per tool round.
 *
 * Data flows through the chart: each step's input is built from context, and what it returns is
 * assigned back by a named action. Streamed tokens never pass through it: the `streamModel` step
 * pushes them to the event stream itself and reports only the finished response.
 *
 * This file is the diagram: the actions, guards and step runner it names are declared in
 * `turn.setup.ts`, and the step protocol and the data of each step in `turn.types.ts`.
 * @module
 */
import type { AgentError } from '../src/errors.js';
import { ZERO_USAGE } from '../src/types.js';
import {
  emitTerminal,
  endTurnInput,
  FAIL_ON_CRASH,
  ids,
  RECORD_ATTEMPT_FAILURE,
  RECORD_RESPONSE,
  runStep,
  turnOutput,
  turnSetup,
} from './turn.setup.js';
import type { CheckBudgetOutput, TurnStatus } from './turn.types.js';

export type * from './turn.types.js';

/**
 * Turn machine: `working` (starting or resuming → preparing → compacting → requesting ⇄
 * reviewing tools (when a call may need a decision) → awaiting approval → dispatching tools) →
 * ending → final.
 */
export const turnMachine = /* @__PURE__ */ turnSetup.createMachine({
  id: 'turn',
  // The step runner lives as long as the turn.
  invoke: { id: 'steps', src: 'steps', input: ({ context }) => ids(context) },
  context: ({ input }) => ({
    ...input,
    attempt: 1,
    toolCallCount: 0,
    repeatCounts: {},
    pendingToolCalls: [],
    awaitingApprovals: [],
    approvalDecisions: [],
    dynamicSections: [],
    usage: ZERO_USAGE,
    finishReason: '',
    lastError: null,
    cancelRequested: false,
    checkpointed: false,
    repairsUsed: 0,
    maxOutputTokens: null,
  }),
  initial: 'working',
  // Each final state names its status in its own `output`; the rest comes from context.
  output: ({ context, event }) => turnOutput(context, (event.output as { status: TurnStatus }).status),
  states: {
    working: {
      initial: 'routing',
      on: {
        // Leaving a working state stops its step, which aborts the step's signal (and with it
        // the HTTP request). `dispatchingTools` overrides this: started tools finish.
        CANCEL: { target: 'cancelling', actions: 'requestCancel' },
      },
      states: {
        // A new turn starts; one continued after a reload resumes where it was cut off.
        routing: {
          always: [{ guard: 'isContinuation', target: 'resuming' }, { target: 'starting' }],
        },
        resuming: {
          entry: runStep('resumeTurn', (context) => ids(context)),
          exit: 'stopStep',
          on: {
            'resumeTurn.done': [
              {
                guard: { type: 'awaitsApprovals', params: ({ event }) => ({ output: event.output }) },
                target: 'awaitingApproval',
                actions: [
                  { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
                  // Only reached with a batch (the guard): the whole batch, its decisions so far.
                  { type: 'restoreApprovals', params: ({ event }) => ({ batch: event.output.approvals! }) },
                ],
              },
              {
                guard: { type: 'hasCallsToRun', params: ({ event }) => ({ output: event.output }) },
                target: 'dispatchingTools',
                actions: { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'preparing',
                actions: { type: 'recordResumed', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            'resumeTurn.error': FAIL_ON_CRASH,
          },
        },
        starting: {
          entry: runStep('startTurn', (context) => ids(context)),
          exit: 'stopStep',
          on: {
            'startTurn.done': {
              target: 'preparing',
              actions: { type: 'recordDynamicSections', params: ({ event }) => ({ output: event.output }) },
            },
            'startTurn.error': FAIL_ON_CRASH,
          },
        },
        preparing: {
          entry: runStep('prepareRequest', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
          })),
          exit: 'stopStep',
          on: {
            'prepareRequest.done': [
              {
                guard: { type: 'needsCompaction', params: ({ event }) => ({ output: event.output }) },
                target: 'compacting',
              },
              { guard: 'budgeted', target: 'checkingBudget' },
              { target: 'requesting' },
            ],
            'prepareRequest.error': FAIL_ON_CRASH,
          },
        },
        compacting: {
          entry: runStep('compactContext', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
            compactionFailures: context.compactionFailures,
            maxCompactionFailures: context.maxCompactionFailures,
          })),
          exit: 'stopStep',
          on: {
            'compactContext.done': [
              {
                guard: 'budgeted',
                target: 'checkingBudget',
                actions: { type: 'recordCompaction', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'requesting',
                actions: { type: 'recordCompaction', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            // Compaction is an optimisation: even a crashed step lets the request go out.
            'compactContext.error': [
              { guard: 'budgeted', target: 'checkingBudget', actions: 'countCompactionFailure' },
              { target: 'requesting', actions: 'countCompactionFailure' },
            ],
          },
        },
        checkingBudget: {
          entry: runStep('checkBudget', (context) => ({
            ...ids(context),
            dynamicSections: context.dynamicSections,
          })),
          exit: 'stopStep',
          on: {
            'checkBudget.done': [
              {
                guard: { type: 'budgetAllows', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: {
                  type: 'recordBudget',
                  params: ({ event }) => ({ output: event.output as CheckBudgetOutput & { allowed: true } }),
                },
              },
              // No request: the turn ends here, completed (the step reported BUDGET_EXCEEDED).
              { target: '#turn.finishing', actions: 'finishAtBudget' },
            ],
            'checkBudget.error': FAIL_ON_CRASH,
          },
        },
        requesting: {
          entry: runStep('streamModel', (context) => ({
            ...ids(context),
            attempt: context.attempt,
            dynamicSections: context.dynamicSections,
            maxOutputTokens: context.maxOutputTokens,
          })),
          exit: 'stopStep',
          on: {
            'streamModel.done': [
              {
                guard: { type: 'answersForOutput', params: ({ event }) => ({ output: event.output }) },
                target: 'validatingOutput',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'callsToReview', params: ({ event }) => ({ output: event.output }) },
                target: 'reviewingTools',
                actions: RECORD_RESPONSE,
              },
              // Nothing could ask for a decision: the batch runs without a review.
              {
                guard: { type: 'hasToolCalls', params: ({ event }) => ({ output: event.output }) },
                target: 'dispatchingTools',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'responded', params: ({ event }) => ({ output: event.output }) },
                target: '#turn.finishing',
                actions: RECORD_RESPONSE,
              },
              {
                guard: { type: 'canRetry', params: ({ event }) => ({ output: event.output }) },
                target: 'waitingToRetry',
                actions: RECORD_ATTEMPT_FAILURE,
              },
              {
                target: '#turn.failing',
                actions: RECORD_ATTEMPT_FAILURE,
              },
            ],
            'streamModel.error': FAIL_ON_CRASH,
          },
        },
        validatingOutput: {
          entry: runStep('validateOutput', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
            repairsUsed: context.repairsUsed,
            repairsLeft: (context.outputRepairs ?? 0) - context.repairsUsed,
          })),
          exit: 'stopStep',
          on: {
            'validateOutput.done': [
              {
                guard: { type: 'outputAccepted', params: ({ event }) => ({ output: event.output }) },
                target: '#turn.finishing',
                actions: 'finishWithOutput',
              },
              {
                guard: { type: 'outputRepairable', params: ({ event }) => ({ output: event.output }) },
                target: 'preparing',
                actions: 'countRepair',
              },
              {
                target: '#turn.failing',
                actions: { type: 'recordOutputFailure', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            'validateOutput.error': FAIL_ON_CRASH,
          },
        },
        waitingToRetry: {
          entry: runStep('waitToRetry', (context) => ({
            ...ids(context),
            attempt: context.attempt,
            // canRetry recorded the failure before entering this state.
            error: context.lastError as AgentError,
          })),
          exit: 'stopStep',
          on: {
            'waitToRetry.done': [
              {
                guard: { type: 'retryApproved', params: ({ event }) => ({ output: event.output }) },
                target: 'requesting',
                actions: 'nextAttempt',
              },
              { target: '#turn.failing' },
            ],
            'waitToRetry.error': '#turn.failing',
          },
        },
        reviewingTools: {
          entry: runStep('reviewToolCalls', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
          })),
          exit: 'stopStep',
          on: {
            'reviewToolCalls.done': [
              {
                guard: { type: 'approvalsPending', params: ({ event }) => ({ output: event.output }) },
                target: 'awaitingApproval',
                actions: { type: 'recordReview', params: ({ event }) => ({ output: event.output }) },
              },
              {
                target: 'dispatchingTools',
                actions: { type: 'recordReview', params: ({ event }) => ({ output: event.output }) },
              },
            ],
            'reviewToolCalls.error': FAIL_ON_CRASH,
          },
        },
        // Also entered directly, with `restoreApprovals`, by a turn continued after a reload.
        awaitingApproval: {
          entry: runStep('awaitApprovals', (context) => ({
            ...ids(context),
            awaiting: context.awaitingApprovals,
          })),
          exit: 'stopStep',
          on: {
            // No call of the batch has started: `endTurn` gives each the skipped result.
            CANCEL: {
              target: '#turn.cancelling',
              actions: [
                'requestCancel',
                { type: 'cancelPendingApprovals', params: ({ context }) => ids(context) },
              ],
            },
            'awaitApprovals.done': {
              target: 'dispatchingTools',
              actions: { type: 'recordApprovals', params: ({ event }) => ({ output: event.output }) },
            },
            'awaitApprovals.error': FAIL_ON_CRASH,
          },
        },
        dispatchingTools: {
          entry: runStep('runToolBatch', (context) => ({
            ...ids(context),
            calls: context.pendingToolCalls,
            denied: context.approvalDecisions.filter((decision) => !decision.approved),
            repeatCounts: context.repeatCounts,
          })),
          exit: 'stopStep',
          on: {
            // Started tools finish (the batch skips the rest): the step is not stopped.
            CANCEL: {
              actions: ['requestCancel', { type: 'signalToolCancel', params: ({ context }) => ids(context) }],
            },
            'runToolBatch.done': [
              {
                guard: 'cancelRequested',
                target: '#turn.cancelling',
                actions: { type: 'countToolCalls', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'toolLimitReached', params: ({ event }) => ({ count: event.output.count }) },
                target: '#turn.finishing',
                actions: [
                  { type: 'countToolCalls', params: ({ event }) => event.output },
                  'finishAtToolLimit',
                  {
                    type: 'noteToolLimitReached',
                    params: ({ context }) => ({ ...ids(context), limit: context.maxToolCallsPerTurn }),
                  },
                ],
              },
              {
                target: 'preparing',
                actions: { type: 'countToolCalls', params: ({ event }) => event.output },
              },
            ],
            'runToolBatch.error': FAIL_ON_CRASH,
          },
        },
      },
    },
    finishing: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'completed')),
      exit: 'stopStep',
      on: {
        'endTurn.done': {
          target: 'completed',
          actions: { type: 'recordCheckpoint', params: ({ event }) => ({ output: event.output }) },
        },
        'endTurn.error': 'completed',
      },
    },
    cancelling: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'cancelled')),
      exit: 'stopStep',
      on: {
        'endTurn.done': 'cancelled',
        'endTurn.error': 'cancelled',
      },
    },
    failing: {
      entry: runStep('endTurn', (context) => endTurnInput(context, 'failed')),
      exit: 'stopStep',
      on: {
        'endTurn.done': 'failed',
        'endTurn.error': 'failed',
      },
    },
    completed: { type: 'final', output: { status: 'completed' }, entry: emitTerminal('completed') },
    cancelled: { type: 'final', output: { status: 'cancelled' }, entry: emitTerminal('cancelled') },
    failed: { type: 'final', output: { status: 'failed' }, entry: emitTerminal('failed') },
  },
});

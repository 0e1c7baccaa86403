/**
 * `Session` and `RunningTurn`: the handles a user holds. A session runs one turn at a time;
 * `sendMessage` returns a `RunningTurn` with the turn's replayed events, `cancel()` and its
 * `result`. A session handle that is garbage-collected without `close()` takes the
 * "dropped handle" path: its running turn is cancelled, no `session_end` hook, no memory
 * extraction, and the agent's slot frees once the turn has ended.
 * @module
 */
import type { Observable } from 'rxjs';
import type { ActorRefFrom } from 'xstate';
import type { sessionMachine } from '../machines/session.machine.js';
import type { ApprovalDesk, PendingApproval } from './approval/approval-desk.js';
import { approvalsPossible } from './approval/approval-route.js';
import {
  MessageBudgetSchema,
  sessionBudget,
  turnBudget,
  type MessageBudget,
} from './budget/budget-config.js';
import { hasLimits } from './budget/plan-request.js';
import * as Errors from './error-constructors.js';
import { prepareOutput, type OutputOptions } from './output/final-answer.js';
import { textStreamOf } from './events/text-stream.js';
import { generateId } from './ids.js';
import type { Conversation } from './conversation/schema.js';
import { closeInterruptedTurn, interruptedTurnView } from './runtime/interrupted-turn.js';
import type { SessionScope } from './runtime/session-scope.js';
import type { TurnContinuation, TurnOptions, TurnRun } from './runtime/turn-run.js';
import {
  UserInputSchema,
  type AgentEvent,
  type InterruptedTurn,
  type Message,
  type TurnResult,
  type UserInput,
} from './types.js';
import { parseInput } from './validate.js';
import * as z from 'zod/mini';

const ApproveOptionsSchema = /* @__PURE__ */ (() => z.strictObject({ always: z.optional(z.boolean()) }))();
const DenyOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({ reason: z.optional(z.string()), always: z.optional(z.boolean()) }))();

const ContinueOptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({ rerunMaybeExecuted: z.optional(z.boolean()) }))();

/** Options of `session.continueTurn()`. */
export interface ContinueTurnOptions {
  /**
   * Run again a mutating call that had started when the page closed. Default `false`: the model
   * reads that its outcome is unknown, so a side effect never happens twice silently.
   */
  rerunMaybeExecuted?: boolean;
}

/** The Session machine's actor, a child of the agent's root actor. */
export type SessionActorRef = ActorRefFrom<typeof sessionMachine>;

/** Whether a close path was asked for (or the session already ended). */
export function closeRequested(ref: SessionActorRef): boolean {
  const snapshot = ref.getSnapshot();
  return snapshot.status !== 'active' || snapshot.context.closeRequested !== null;
}

// When a Session handle is collected while its session is still open, take the drop path.
const dropped = new FinalizationRegistry<SessionActorRef>((ref) => {
  if (!closeRequested(ref)) ref.send({ type: 'DROP' });
});

/**
 * What `sendMessage` may ask of a turn beyond its input.
 * @example
 * await session.sendMessage('Plan a weekend in Lisbon', {
 *   output: { schema: TripSchema, name: 'trip_plan' },
 *   budget: { maxCost: 0.05 },
 * });
 */
export interface SendMessageOptions<T = unknown> {
  /** A structured answer: the turn completes with `result.output`, valid under `schema`. */
  output?: OutputOptions<T>;
  /** Limits of this turn, on top of `AgentConfig.budget`'s per-turn ones (the stricter applies). */
  budget?: MessageBudget;
}

/**
 * A running turn: its events (replayed from the start), its pending approvals, cancellation and
 * outcome.
 */
export class RunningTurn<T = unknown> {
  /** The turn's id (`AgentEvent.turnId`). */
  readonly id: string;
  /** This turn's events, replayed from its start; completes after the terminal event. */
  readonly events: Observable<AgentEvent>;
  /** Settles when the turn has ended and is durable; never rejects. */
  readonly result: Promise<TurnResult<T>>;
  readonly #cancel: () => void;
  readonly #approvals: ApprovalDesk;

  /** @internal */
  constructor(turn: TurnRun, cancel: () => void) {
    this.id = turn.id;
    this.events = turn.events;
    this.result = turn.result as Promise<TurnResult<T>>;
    this.#cancel = cancel;
    this.#approvals = turn.approvals;
  }

  /**
   * The answer's text deltas, from the turn's start (also when iterated late), ending at the
   * turn's end — completed, cancelled or failed.
   * @example
   * for await (const text of turn.textStream) output.append(text);
   */
  get textStream(): AsyncIterable<string> {
    return textStreamOf(this.events);
  }

  /**
   * The tool calls waiting for `approve` or `deny`, in call order (each announced by an
   * `approval_requested` event); empty when none waits. A new array after every change.
   */
  get pendingApprovals(): readonly PendingApproval[] {
    return this.#approvals.pending;
  }

  /**
   * Lets a pending call run. Resolves once the decision is stored; `always` also stores a rule
   * that lets every later call of the same tool in this session run without asking. Rejects
   * `APPROVAL_NOT_PENDING` for an unknown or already decided call, `INVALID_INPUT` for bad options.
   * @example
   * turn.events.subscribe(({ payload }) => {
   *   if (payload.type === 'approval_requested') void turn.approve(payload.callId);
   * });
   */
  async approve(callId: string, options: { always?: boolean } = {}): Promise<void> {
    const { always } = parseInput(ApproveOptionsSchema, options, 'options');
    return this.#approvals.answer(callId, { approved: true, always: always === true });
  }

  /**
   * Denies a pending call: it does not run, and the model reads "Tool call denied by the user:
   * <reason>". Resolves once the decision is stored; `always` denies every later call of the same
   * tool in this session too. Rejects `APPROVAL_NOT_PENDING` like {@link RunningTurn.approve}.
   * @example
   * await turn.deny(callId, { reason: 'not on a Friday' }); // the model reads the reason
   */
  async deny(callId: string, options: { reason?: string; always?: boolean } = {}): Promise<void> {
    const { reason, always } = parseInput(DenyOptionsSchema, options, 'options');
    return this.#approvals.answer(callId, {
      approved: false,
      ...(reason !== undefined && { reason }),
      always: always === true,
    });
  }

  /**
   * Cancels the turn: the model request is aborted at once, tools not yet started are skipped,
   * started ones finish, a partial answer is kept as `incomplete`, and the turn ends with one
   * `turn_cancelled`. A no-op once the turn has ended.
   */
  cancel(): void {
    this.#cancel();
  }
}

/** One conversation. Open it with `agent.newSession()` or `agent.resumeSession(id)`. */
export class Session {
  readonly #scope: SessionScope;
  readonly #ref: SessionActorRef;
  #turn: RunningTurn | null = null;

  /** @internal */
  constructor(scope: SessionScope, ref: SessionActorRef) {
    this.#scope = scope;
    this.#ref = ref;
    dropped.register(this, ref, this);
  }

  /** The session id (the key in `SessionStorage`). */
  get id(): string {
    return this.#scope.id;
  }

  /**
   * The turn that runs now (started here, or continued with `continueTurn()` after a reload);
   * `null` between turns.
   * @example
   * session.activeTurn?.cancel();
   */
  get activeTurn(): RunningTurn | null {
    const turn = this.#turn;
    return turn && this.#ref.getSnapshot().context.activeTurnId === turn.id ? turn : null;
  }

  /** The resolved model of this session. */
  get modelId(): string {
    return this.#scope.modelId;
  }

  /**
   * The current context history (live view; compaction may shorten it). Always valid for a
   * request: every `tool_call` has exactly one `tool_result` (while a turn is interrupted, a call
   * with no stored result shows a derived "interrupted" error result).
   */
  get messages(): readonly Message[] {
    return this.#scope.history.messages;
  }

  /**
   * The turn a reload cut off (started, never ended), found by `resumeSession`; `null` when there
   * is none or once it was continued or discarded.
   * @example
   * const session = await agent.resumeSession(id);
   * if (session.interruptedTurn) showContinueButton(session.interruptedTurn.partialText);
   */
  get interruptedTurn(): InterruptedTurn | null {
    const loaded = this.#scope.interrupted;
    if (!loaded) return null;
    if (this.#view?.loaded !== loaded) {
      const tools = this.#scope.services.tools;
      this.#view = { loaded, view: interruptedTurnView(loaded, (name) => tools.isMutating(name)) };
    }
    return this.#view.view;
  }
  #view: { loaded: object; view: InterruptedTurn } | null = null;

  /** Every event of this session, live (no replay); completes when the session is closed. */
  get events(): Observable<AgentEvent> {
    return this.#scope.events.events;
  }

  /**
   * The conversation, ready to render: its current state on subscribe, then one on every change;
   * completes when the session is closed (a later subscriber gets the last state, then completes).
   * A resumed session shows the same user, assistant and tool items the live one showed, minus
   * what is never stored (reasoning, durations, error and retry notices). Unchanged items keep
   * their identity; a delta rebuilds only its item.
   * @example
   * session.conversation.subscribe(({ items, turn, context }) => render(items, turn !== null, context));
   */
  get conversation(): Observable<Conversation> {
    return this.#scope.conversation.states;
  }

  /**
   * Starts a turn. Rejects `INVALID_INPUT` for bad input or options, `TURN_BUSY` while a turn
   * runs, `SESSION_CLOSED` once the session is closing or closed.
   *
   * With `output`, the model answers by calling the reserved tool `final_answer` (its parameters
   * are the schema): `result.output` holds the validated answer, `output_delta` events its
   * partial object while it streams (when the provider streams tool-call arguments). With
   * `budget`, the turn's requests are held to those limits as well as the agent's.
   * @example
   * const turn = await session.sendMessage('What is the weather in Paris?');
   * turn.events.subscribe((e) => e.payload.type === 'text_delta' && render(e.payload.text));
   * const { status, usage } = await turn.result;
   */
  async sendMessage<T = unknown>(
    input: UserInput | string,
    options: SendMessageOptions<T> = {},
  ): Promise<RunningTurn<T>> {
    const parsed =
      typeof input === 'string'
        ? parseInput(UserInputSchema, { content: [{ type: 'text', text: input }] }, 'input')
        : parseInput(UserInputSchema, input, 'input');
    if (parsed.content.every((b) => b.type === 'text' && b.text.trim() === '')) {
      throw Errors.invalidInput('invalid input: the message is empty');
    }
    const turnOptions = this.#turnOptions(options);
    this.#assertIdle();
    const interrupted = this.interruptedTurn;
    if (interrupted && interrupted.pendingApprovals.length > 0) {
      throw Errors.approvalPending(interrupted.pendingApprovals.map((a) => a.callId));
    }
    // A new message closes the interrupted turn as it is (its turn_cancelled is emitted).
    if (interrupted) closeInterruptedTurn(this.#scope, 'discard');
    return this.#start<T>(this.#scope.beginTurn(generateId(), parsed, null, turnOptions), false);
  }

  /**
   * Continues the interrupted turn under its id; its first event is `turn_resumed`. The partial
   * text is kept as an `incomplete` assistant message (with the usual note), read-only calls that
   * did not finish run again, a mutating call that had not started runs, and one that had started
   * gets "outcome unknown" unless `rerunMaybeExecuted`; then the turn goes on as usual.
   * Rejects `INVALID_INPUT` when nothing is interrupted, `TURN_BUSY`, `SESSION_CLOSED`.
   * @example
   * const turn = await session.continueTurn();
   * console.log((await turn.result).status);
   */
  async continueTurn(options: ContinueTurnOptions = {}): Promise<RunningTurn> {
    const parsed = parseInput(ContinueOptionsSchema, options, 'options');
    return this._continue({ rerunMaybeExecuted: parsed.rerunMaybeExecuted === true });
  }

  /** @internal `continueTurn` with its continuation as the runtime takes it (a server's recovery). */
  _continue(continuation: TurnContinuation): RunningTurn {
    this.#assertIdle();
    const loaded = this.#scope.interrupted;
    if (!loaded) throw Errors.invalidInput('there is no interrupted turn to continue');
    const turn = this.#scope.beginTurn(
      loaded.turnId,
      null,
      continuation,
      // The agent's budgets hold for a continued turn too.
      { output: null, budget: turnBudget(this.#scope.services.config.budget, undefined) },
    );
    return this.#start(turn, true);
  }

  /**
   * Closes the interrupted turn as it is: each unfinished call keeps its "interrupted" result,
   * the partial text is kept as an `incomplete` assistant message, and the turn's
   * `turn_cancelled` is emitted. Resolves once that is stored. A no-op when nothing is
   * interrupted; `TURN_BUSY` while a turn runs, `SESSION_CLOSED` once closing.
   */
  async discardInterruptedTurn(): Promise<void> {
    this.#assertIdle();
    if (!closeInterruptedTurn(this.#scope, 'discard')) return;
    await Promise.all([this.#scope.writes.drain(), this.#scope.drafts.settled()]);
  }

  #assertIdle(): void {
    if (closeRequested(this.#ref)) throw Errors.sessionClosed();
    if (!this.#ref.getSnapshot().matches({ open: 'idle' })) throw Errors.turnBusy();
  }

  /** The options checked and prepared for the turn. */
  #turnOptions(options: SendMessageOptions<unknown>): TurnOptions {
    if (typeof options !== 'object' || options === null)
      throw Errors.invalidInput('invalid options: expected an object');
    const { output, budget, ...unknown } = options;
    const extra = Object.keys(unknown);
    if (extra.length > 0) throw Errors.invalidInput(`invalid options: unknown key '${extra[0]}'`);
    const message = budget === undefined ? undefined : parseInput(MessageBudgetSchema, budget, 'budget');
    return {
      output: output === undefined ? null : prepareOutput(output),
      budget: turnBudget(this.#scope.services.config.budget, message),
    };
  }

  #start<T = unknown>(turn: TurnRun, continued: boolean): RunningTurn<T> {
    const ref = this.#ref;
    const { output, budget } = turn.options;
    ref.send({
      type: 'SEND',
      turnId: turn.id,
      continued,
      outputRepairs: output?.maxRepairs ?? null,
      budgeted: hasLimits(budget) || hasLimits(sessionBudget(this.#scope.services.config.budget)),
      approvalsPossible: approvalsPossible({
        policy: this.#scope.services.config.approval.policy,
        rules: this.#scope.approvalRules,
        tools: this.#scope.services.tools,
        toolSources: this.#scope.services.toolSources,
      }),
    });
    const running = new RunningTurn<T>(turn, () => {
      if (ref.getSnapshot().context.activeTurnId !== turn.id) return;
      // At once, not only through the machine: a cancel from inside a batch's own event (a
      // tool_call_start subscriber) must skip the calls after it, before the machine takes the event.
      turn.toolCancel.abort();
      ref.send({ type: 'CANCEL' });
    });
    this.#turn = running as RunningTurn;
    return running;
  }

  /**
   * Closes the session: waits for a running turn, fires `session_end`, extracts memories
   * (a failure is reported, never blocks), drains pending writes, and frees the agent for a new
   * session. Idempotent.
   */
  async close(): Promise<void> {
    if (!closeRequested(this.#ref)) {
      dropped.unregister(this);
      this.#ref.send({ type: 'CLOSE' });
    }
    await this.#scope.closed;
  }
}

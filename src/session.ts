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
import { Errors } from './errors.js';
import { generateId } from './ids.js';
import type { Conversation } from './conversation/schema.js';
import type { SessionScope } from './runtime/session-scope.js';
import type { TurnRun } from './runtime/turn-run.js';
import { UserInputSchema, type AgentEvent, type Message, type TurnResult, type UserInput } from './types.js';
import { parseInput } from './validate.js';

/** The Session machine's actor, a child of the agent's root actor. */
export type SessionActorRef = ActorRefFrom<typeof sessionMachine>;

/** Whether a close path was asked for (or the session already ended). */
function closeRequested(ref: SessionActorRef): boolean {
  const snapshot = ref.getSnapshot();
  return snapshot.status !== 'active' || snapshot.context.closeRequested !== null;
}

// When a Session handle is collected while its session is still open, take the drop path.
const dropped = new FinalizationRegistry<SessionActorRef>((ref) => {
  if (!closeRequested(ref)) ref.send({ type: 'DROP' });
});

/**
 * A running turn: its events (replayed from the start), its pending approvals, cancellation and
 * outcome.
 */
export class RunningTurn {
  /** The turn's id (`AgentEvent.turnId`). */
  readonly id: string;
  /** This turn's events, replayed from its start; completes after the terminal event. */
  readonly events: Observable<AgentEvent>;
  /** Settles when the turn has ended and is durable; never rejects. */
  readonly result: Promise<TurnResult>;
  readonly #cancel: () => void;
  readonly #approvals: ApprovalDesk;

  /** @internal */
  constructor(turn: TurnRun, cancel: () => void) {
    this.id = turn.id;
    this.events = turn.events;
    this.result = turn.result;
    this.#cancel = cancel;
    this.#approvals = turn.approvals;
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
   * `APPROVAL_NOT_PENDING` for an unknown or already decided call.
   * @example
   * turn.events.subscribe(({ payload }) => {
   *   if (payload.type === 'approval_requested') void turn.approve(payload.callId);
   * });
   */
  approve(callId: string, options: { always?: boolean } = {}): Promise<void> {
    return this.#approvals.answer(callId, { approved: true, always: options.always === true });
  }

  /**
   * Denies a pending call: it does not run, and the model reads "Tool call denied by the user:
   * <reason>". Resolves once the decision is stored; `always` denies every later call of the same
   * tool in this session too. Rejects `APPROVAL_NOT_PENDING` like {@link RunningTurn.approve}.
   */
  deny(callId: string, options: { reason?: string; always?: boolean } = {}): Promise<void> {
    return this.#approvals.answer(callId, {
      approved: false,
      ...(options.reason !== undefined && { reason: options.reason }),
      always: options.always === true,
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

  /** The resolved model of this session. */
  get modelId(): string {
    return this.#scope.modelId;
  }

  /** The current context history (live view; compaction may shorten it). */
  get messages(): readonly Message[] {
    return this.#scope.history.messages;
  }

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
   * Starts a turn. Rejects `INVALID_INPUT` for bad input, `TURN_BUSY` while a turn runs,
   * `SESSION_CLOSED` once the session is closing or closed.
   * @example
   * const turn = await session.sendMessage('What is the weather in Paris?');
   * turn.events.subscribe((e) => e.payload.type === 'text_delta' && render(e.payload.text));
   * const { status, usage } = await turn.result;
   */
  async sendMessage(input: UserInput | string): Promise<RunningTurn> {
    const parsed =
      typeof input === 'string'
        ? parseInput(UserInputSchema, { content: [{ type: 'text', text: input }] }, 'input')
        : parseInput(UserInputSchema, input, 'input');
    if (parsed.content.every((b) => b.type === 'text' && b.text.trim() === '')) {
      throw Errors.invalidInput('invalid input: the message is empty');
    }
    if (closeRequested(this.#ref)) throw Errors.sessionClosed();
    if (!this.#ref.getSnapshot().matches({ open: 'idle' })) throw Errors.turnBusy();

    const turn = this.#scope.beginTurn(generateId(), parsed);
    const ref = this.#ref;
    ref.send({ type: 'SEND', turnId: turn.id });
    return new RunningTurn(turn, () => {
      if (ref.getSnapshot().context.activeTurnId !== turn.id) return;
      // At once, not only through the machine: a cancel from inside a batch's own event (a
      // tool_call_start subscriber) must skip the calls after it, before the machine takes the event.
      turn.toolCancel.abort();
      ref.send({ type: 'CANCEL' });
    });
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

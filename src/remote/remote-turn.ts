/**
 * `RemoteTurn`: a turn running on the server, with the surface of a local `RunningTurn` — its
 * events (replayed from its start), pending approvals, `approve` / `deny`, `cancel()` and
 * `result`.
 * @module
 */
import type { Observable } from 'rxjs';
import { AgentError } from '../errors.js';
import { Channel } from '../events/channel.js';
import { textStreamOf } from '../events/text-stream.js';
import type { ConversationItem } from '../conversation/schema.js';
import type { AgentEvent, PendingApproval, TurnResult } from '../types.js';
import { agentError, call, seg, type RemoteTransport } from './remote-http.js';
import type { WireResult } from './wire.js';

/** A turn's result as the server sends it, without the history. */
export type WireTurnResult = Pick<WireResult, 'status' | 'usage' | 'cost' | 'output' | 'error'>;

/** The terminal payloads: after one of them a turn's events complete. */
function isTerminal({ payload }: AgentEvent): boolean {
  return (
    payload.type === 'turn_complete' ||
    payload.type === 'turn_cancelled' ||
    (payload.type === 'error' && payload.fatal)
  );
}

/** A turn of a `RemoteSession`. */
export class RemoteTurn<T = unknown> {
  /** The turn's id (`AgentEvent.turnId`). */
  readonly id: string;
  /** This turn's events, replayed from its start; completes after the terminal event. */
  readonly events: Observable<AgentEvent>;
  /** Settles when the turn has ended on the server (or was lost); never rejects. */
  readonly result: Promise<TurnResult<T>>;
  readonly #channel = new Channel<AgentEvent>({ replay: true });
  readonly #transport: RemoteTransport;
  readonly #sessionId: string;
  #pending: readonly PendingApproval[] = [];
  #resolve!: (result: TurnResult<T>) => void;
  #settled = false;

  /** @internal */
  constructor(id: string, sessionId: string, transport: RemoteTransport) {
    this.id = id;
    this.#sessionId = sessionId;
    this.#transport = transport;
    this.events = this.#channel.observable;
    this.result = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** Whether `result` has settled. */
  get settled(): boolean {
    return this.#settled;
  }

  /**
   * The answer's text deltas, from the turn's start (also when iterated late), ending at the
   * turn's end — completed, cancelled, failed or lost.
   * @example
   * for await (const text of turn.textStream) output.append(text);
   */
  get textStream(): AsyncIterable<string> {
    return textStreamOf(this.events);
  }

  /** The calls waiting for `approve` or `deny`, in call order; a new array after every change. */
  get pendingApprovals(): readonly PendingApproval[] {
    return this.#pending;
  }

  /**
   * Lets a pending call run; resolves once the server stored the decision. Rejects
   * `APPROVAL_NOT_PENDING` for an unknown or decided call, as a local turn does.
   * @example
   * turn.events.subscribe(({ payload }) => {
   *   if (payload.type === 'approval_requested') void turn.approve(payload.callId);
   * });
   */
  async approve(callId: string, options: { always?: boolean } = {}): Promise<void> {
    await this.#decide(callId, { ...options, approved: true });
  }

  /** Denies a pending call (the model reads the reason); resolves once the decision is stored. */
  async deny(callId: string, options: { reason?: string; always?: boolean } = {}): Promise<void> {
    await this.#decide(callId, { ...options, approved: false });
  }

  /**
   * Cancels the turn on the server (closing a stream never does). A no-op once the turn has
   * ended; the outcome arrives in `result`.
   */
  cancel(): void {
    if (this.#settled) return;
    void call(
      this.#transport,
      'POST',
      `/sessions/${seg(this.#sessionId)}/turns/${seg(this.id)}/cancel`,
    ).catch(() => {});
  }

  async #decide(callId: string, body: Record<string, unknown>): Promise<void> {
    const path = `/sessions/${seg(this.#sessionId)}/turns/${seg(this.id)}/approvals/${seg(String(callId))}`;
    await call(this.#transport, 'POST', path, body);
  }

  /**
   * @internal One of this turn's events, as the server sent it; with an event frame, the
   * conversation's items as that frame left them, which keep the pending approvals.
   */
  _event(event: AgentEvent, items?: readonly ConversationItem[]): void {
    if (items) this._waiting(items, event.timestamp);
    this.#channel.next(event);
    if (isTerminal(event)) {
      this.#pending = [];
      this.#channel.complete();
    }
  }

  /**
   * @internal The conversation's tool items: a call shown awaiting approval joins the pending
   * ones (requested `at`), a pending call shown decided leaves them.
   */
  _waiting(items: readonly ConversationItem[], at = new Date().toISOString()): void {
    let pending = this.#pending;
    for (const item of items) {
      if (item.kind !== 'tool') continue;
      const known = pending.some((a) => a.callId === item.callId);
      if (item.status !== 'awaiting_approval') {
        if (known) pending = pending.filter((a) => a.callId !== item.callId);
      } else if (!known && !this.#settled) {
        const { callId, toolName } = item;
        pending = [...pending, { callId, toolName, arguments: item.arguments, requestedAt: at }];
      }
    }
    this.#pending = pending;
  }

  /** @internal The turn's result, from the server's `result` frame or a state's last turn. */
  _result(wire: WireTurnResult): void {
    const { status, usage, cost, output, error } = wire;
    const result: TurnResult<T> = { status, usage, cost };
    if (output !== undefined) result.output = output as T;
    if (error) result.error = agentError(error);
    this.#settle(result);
  }

  /** @internal The turn is lost to this client (a broken stream, or the server lost it). */
  _fail(error: AgentError): void {
    this.#settle({
      status: 'failed',
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      cost: null,
      error,
    });
  }

  #settle(result: TurnResult<T>): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#pending = [];
    this.#channel.complete();
    this.#resolve(result);
  }
}

/**
 * `RemoteSession`: a session the server holds, with the surface of a local `Session`. Its
 * conversation is the server's, kept in step by the frames of one stream at a time — the turn's
 * answer while this client runs a turn, else `GET …/events` while anyone watches — and a broken
 * stream is taken up again by itself, from the last frame applied.
 * @module
 */
import type { Observable, Subscriber, Unsubscribable } from 'rxjs';
import { Observable as RxObservable } from 'rxjs/internal/Observable';
import { AgentError } from '../errors.js';
import { Channel } from '../events/channel.js';
import type { Conversation, ConversationItem } from '../conversation/schema.js';
import type { AgentEvent, InterruptedTurn, Message, UserInput } from '../types.js';
import { applyPatch, applySplice } from './apply-patch.js';
import { bounded, call, errorOf, fromServer, ProtocolError, seg, send, type RemoteTransport } from './remote-http.js';
import { RemoteTurn } from './remote-turn.js';
import { readSse } from './sse-reader.js';
import {
  FRAME_SCHEMAS,
  MAX_FRAME_BYTES,
  HEARTBEAT_HEADER,
  parseFrameId,
  ReadStateSchema,
  TURN_ID_HEADER,
  type DeltaFrame,
  type EventFrame,
  type FrameId,
  type FrameData,
  type FrameKind,
  type SessionPatch,
  type SessionState,
  type WireResult,
} from './wire.js';


/** A `state` frame carries the whole history and is read whatever its size; any other is bounded. */
const frameLimit = (event: string) => (event === 'state' ? Number.POSITIVE_INFINITY : MAX_FRAME_BYTES);

/** The wait before reconnect `n` (1-based): 200 ms doubling to 5 s (and no further), with jitter. */
const backoff = (n: number) => Math.min(5_000, 200 * 2 ** (n - 1)) * (0.5 + Math.random() / 2);

/** The options of a remote turn: as a local turn's, with `output` naming one of the server's `outputs`. */
export interface RemoteSendOptions {
  output?: { name: string; maxRepairs?: number };
  budget?: { maxCost?: number; maxTokens?: number };
}


/** The stream in use. */
interface Link {
  controller: AbortController;
  turn: RemoteTurn | null;
}

/** A session held by the server. Open it with `RemoteAgent.newSession()` / `resumeSession(id)`. */
export class RemoteSession {
  /** The session id. */
  readonly id: string;
  readonly #transport: RemoteTransport;
  #conversation: Conversation;
  #messages: readonly Message[];
  /**
   * The history as this client's stream frames make it, which their splices apply to (what
   * `messages` shows may be newer, read back after a command).
   */
  #streamMessages: readonly Message[];
  #interrupted: InterruptedTurn | null;
  #position: FrameId | null;
  #lastId: string | null;
  readonly #changes = new Channel<Conversation>({ replay: false });
  readonly #events = new Channel<AgentEvent>({ replay: false });
  readonly #turns = new Map<string, RemoteTurn>();
  #observers = 0;
  #link: Link | null = null;
  #closed = false;

  /** @internal */
  constructor(transport: RemoteTransport, state: SessionState, eventId: string | null) {
    this.#transport = transport;
    this.id = state.id;
    this.#conversation = state.conversation;
    this.#messages = state.messages;
    this.#streamMessages = state.messages;
    this.#interrupted = state.interruptedTurn;
    this.#position = parseFrameId(eventId);
    this.#lastId = this.#position ? eventId : null;
    this.#track();
    this.#follow();
  }

  /** The context history as the server last sent it (after each turn, and with each state). */
  get messages(): readonly Message[] {
    return this.#messages;
  }

  /** The turn a reload or a lost instance cut off; `null` when none. */
  get interruptedTurn(): InterruptedTurn | null {
    return this.#interrupted;
  }

  /**
   * The conversation, ready to render: its current state on subscribe, then one per change;
   * completes at `close()`. While anyone subscribes, the session follows the server's stream.
   * @example
   * session.conversation.subscribe(({ items, turn }) => render(items, turn !== null));
   */
  get conversation(): Observable<Conversation> {
    return this.#watched((subscriber) => {
      if (this.#closed) {
        // A closed session still shows its last state.
        subscriber.next(this.#conversation);
        subscriber.complete();
        return undefined;
      }
      const live = this.#changes.observable.subscribe(subscriber);
      subscriber.next(this.#conversation);
      return live;
    });
  }

  /** Every event of the session the stream delivers, live; completes at `close()`. */
  get events(): Observable<AgentEvent> {
    return this.#watched((subscriber) => this.#events.observable.subscribe(subscriber));
  }

  /**
   * Starts a turn on the server. Rejects as a local session does (`TURN_BUSY`, `INVALID_INPUT`,
   * `APPROVAL_PENDING`…), plus `UNAUTHORIZED` and `SERVER_BUSY`.
   * @example
   * const turn = await session.sendMessage('Hello');
   * const { status } = await turn.result;
   */
  async sendMessage<T = unknown>(
    input: UserInput | string,
    options?: RemoteSendOptions,
  ): Promise<RemoteTurn<T>> {
    // An absent `options` is left out of the body (JSON has no undefined).
    return this.#startTurn<T>('turns', { input, options });
  }

  /** Continues the interrupted turn under its id (`INVALID_INPUT` when there is none). */
  async continueTurn(options?: { rerunMaybeExecuted?: boolean }): Promise<RemoteTurn> {
    const turn = await this.#startTurn('continue', { options });
    this.#interrupted = null;
    return turn;
  }

  /** Closes the interrupted turn as it is; resolves once that is stored. */
  async discardInterruptedTurn(): Promise<void> {
    await call(this.#transport, 'POST', `/sessions/${seg(this.id)}/discard`);
    await this.#refresh();
  }

  /** Closes the session on the server (its full close path); the streams here complete. Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#link?.controller.abort();
    this.#link = null;
    try {
      await call(this.#transport, 'POST', `/sessions/${seg(this.id)}/close`);
    } finally {
      for (const turn of this.#turns.values())
        turn._fail(new AgentError('SESSION_CLOSED', 'the session was closed'));
      this.#changes.complete();
      this.#events.complete();
    }
  }

  async #startTurn<T>(route: 'turns' | 'continue', body: unknown): Promise<RemoteTurn<T>> {
    if (this.#closed) throw new AgentError('SESSION_CLOSED', 'the session is closed');
    // The turn's answer carries everything the follow stream would: that one stops. (Another
    // turn's stream goes on until its result; frames both carry are applied once.)
    if (this.#link && this.#link.turn === null) {
      this.#link.controller.abort();
      this.#link = null;
    }
    const controller = new AbortController();
    const abort = () => controller.abort();
    const path = `/sessions/${seg(this.id)}/${route}`;
    const ms = this.#transport.requestTimeoutMs;
    let response: Response;
    try {
      response = await bounded(
        send(this.#transport, 'POST', path, { body, lastEventId: this.#lastId, signal: controller.signal }),
        ms,
        abort,
      );
      if (!response.ok) throw await bounded(errorOf(response), ms, abort);
    } catch (error) {
      this.#follow();
      throw error;
    }
    const turnId = response.headers.get(TURN_ID_HEADER);
    if (!turnId || !response.body) {
      void response.body?.cancel();
      throw new ProtocolError('a turn without its id');
    }
    // A continued turn is the one already awaited here, if any: it goes on, and settles once.
    let turn = this.#turns.get(turnId) as RemoteTurn<T> | undefined;
    if (!turn) this.#await((turn = new RemoteTurn<T>(turnId, this.id, this.#transport)) as RemoteTurn);
    void this.#pump({ controller, turn: turn as RemoteTurn }, response);
    return turn;
  }

  /** Waits for `turn` here: kept in step by the frames until its result. */
  #await(turn: RemoteTurn): void {
    this.#turns.set(turn.id, turn);
    void turn.result.then(() => {
      if (this.#turns.get(turn.id) === turn) this.#turns.delete(turn.id);
      this.#release();
    });
  }

  /**
   * The turn that runs on the server now, whoever started it (this page, a reloaded one, another
   * device): approve, deny or cancel it here. Known from `resumeSession` alone, kept current by
   * the session's stream; `null` when no turn runs.
   * @example
   * const session = await remote.resumeSession(id);
   * const [waiting] = session.activeTurn?.pendingApprovals ?? [];
   * if (waiting) await session.activeTurn!.approve(waiting.callId);
   */
  get activeTurn(): RemoteTurn | null {
    // This client's own turn before its first frame shows it running, else the one shown.
    const turn = this.#turns.get(this.#link?.turn?.id ?? this.#conversation.turn?.id ?? '');
    return turn && !turn.settled ? turn : null;
  }

  /**
   * Takes up the turn the conversation shows running when this client does not wait for it yet
   * (started elsewhere, or before a reload); its pending approvals follow the conversation's tool
   * items.
   */
  #track(state = true): void {
    const running = this.#conversation.turn;
    if (!running) return;
    let turn = this.#turns.get(running.id);
    if (!turn) this.#await((turn = new RemoteTurn(running.id, this.id, this.#transport)));
    // Between states, the events keep the approvals current (a stream that only sends states
    // brings no events).
    else if (!state) return;
    turn._waiting(this.#conversation.items);
  }

  /** Whether the session must follow the server: someone watches it, or a turn is awaited. */
  #wanted(): boolean {
    return this.#observers > 0 || this.#awaiting();
  }

  /** Whether a turn's result is still awaited here (a turn leaves `#turns` once it settles). */
  #awaiting(): boolean {
    return this.#turns.size > 0;
  }

  /** Stops the follow stream once nothing needs it. */
  #release(): void {
    if (!this.#wanted() && this.#link && this.#link.turn === null) {
      this.#link.controller.abort();
      this.#link = null;
    }
  }

  /** An observable that counts its subscribers as watchers (a watched session follows the server). */
  #watched<T>(subscribe: (subscriber: Subscriber<T>) => Unsubscribable | undefined): Observable<T> {
    return new RxObservable<T>((subscriber) => {
      if (this.#closed) return subscribe(subscriber);
      this.#observers++;
      this.#follow();
      const inner = subscribe(subscriber);
      return () => {
        inner?.unsubscribe();
        this.#observers--;
        this.#release();
      };
    });
  }

  /** Opens the follow stream when it is wanted and no stream is open. */
  #follow(): void {
    if (this.#closed || this.#link || !this.#wanted()) return;
    void this.#pump({ controller: new AbortController(), turn: null }, null);
  }

  /**
   * Reads one link's frames, reconnecting from the last applied frame while the link is needed.
   * A stream silent for three heartbeat intervals is given up and taken up again; the turns it is
   * awaited for fail once no server was reached for `reconnectTimeoutMs`.
   */
  async #pump(link: Link, first: Response | null): Promise<void> {
    // A follow stream opened while the turn was being started gives way to the turn's.
    const before = this.#link;
    if (link.turn && before && before !== link && before.turn === null) before.controller.abort();
    this.#link = link;
    const { signal } = link.controller;
    const { reconnectTimeoutMs, requestTimeoutMs } = this.#transport;
    const path = `/sessions/${seg(this.id)}/events`;
    let response = first;
    let failures = 0;
    // The last sign of a server serving this stream: a heartbeat, or a frame other than a state
    // (which a server that only reads storage answers with, again and again).
    let aliveAt = Date.now();
    const alive = () => {
      aliveAt = Date.now();
      failures = 0;
    };
    const awaited = () => link.turn !== null || this.#awaiting();
    const needed = () =>
      !this.#closed && !signal.aborted && (link.turn ? !link.turn.settled : this.#wanted());
    while (needed()) {
      const left = aliveAt + reconnectTimeoutMs - Date.now();
      if (left <= 0 && awaited()) {
        const error = new AgentError('INTERNAL_ERROR', 'the server could not be reached again', {
          retryable: true,
        });
        if (link.turn) return this.#lost(link, error);
        for (const turn of this.#turns.values()) turn._fail(error);
        if (!needed()) break;
      }
      const connection = new AbortController();
      const stop = () => connection.abort();
      signal.addEventListener('abort', stop);
      const ms = awaited() ? Math.min(requestTimeoutMs, left) : requestTimeoutMs;
      try {
        response ??= await bounded(
          send(this.#transport, 'GET', path, { lastEventId: this.#lastId, signal: connection.signal }),
          ms,
          stop,
        );
        if (!response.ok) {
          const error = await bounded(errorOf(response), ms, stop);
          if (response.status < 500 && link.turn) return this.#lost(link, error);
          throw error;
        }
        if (!response.body) throw new ProtocolError('a stream without a body');
        // Three of the server's heartbeat intervals (clamped; 15 s when it names none).
        const idleMs =
          3 * Math.min(300_000, Math.max(100, Number(response.headers.get(HEARTBEAT_HEADER)) || 15_000));
        let previous: FrameId | null = null;
        for await (const message of readSse(response.body, frameLimit, idleMs, alive)) {
          if (signal.aborted) break;
          previous = this.#apply(message.event, message.id, message.data, previous);
          if (message.event !== 'state') alive();
          this.#track(message.event === 'state');
          if (!needed()) break;
        }
      } catch (caught) {
        if (signal.aborted) break;
        if (caught instanceof ProtocolError) {
          if (link.turn) return this.#lost(link, caught);
          this.#forget();
        }
      } finally {
        signal.removeEventListener('abort', stop);
      }
      response = null;
      if (!needed()) break;
      await new Promise((resolve) => setTimeout(resolve, backoff(++failures)));
    }
    this.#unlink(link);
  }

  /** Drops the stream position: the next stream starts with the server's state, which replaces this one. */
  #forget(): void {
    this.#position = null;
    this.#lastId = null;
  }

  #unlink(link: Link): void {
    if (this.#link !== link) return;
    this.#link = null;
    if (link.turn) this.#follow();
  }

  /**
   * A turn's link that cannot go on: its turn fails with `error`; the conversation stays as it
   * was. Following goes on whatever the failure (after a protocol error, from a fresh state).
   */
  #lost(link: Link, error: AgentError): void {
    link.turn?._fail(error);
    if (this.#link === link) this.#link = null;
    if (error instanceof ProtocolError) this.#forget();
    this.#follow();
  }

  /**
   * After a state: each awaited turn that no longer runs there settles — with its real result
   * when the state names it as the last turn, else `SESSION_CLOSED` (it ended while the stream was
   * down, or its instance stopped and it is in `interruptedTurn`).
   */
  #settleEnded(state: SessionState): void {
    const last = state.lastTurn;
    for (const turn of this.#turns.values()) {
      if (state.conversation.turn?.id === turn.id) continue;
      if (last?.turnId === turn.id) {
        turn._result(last.result);
        continue;
      }
      const cut = state.interruptedTurn?.turnId === turn.id;
      turn._fail(
        new AgentError(
          'SESSION_CLOSED',
          cut
            ? 'the turn was cut off: see session.interruptedTurn'
            : 'the turn ended while the stream was down',
        ),
      );
    }
  }

  /** Checks and applies one frame; returns its id. */
  #apply(event: string, id: string | null, data: string, previous: FrameId | null): FrameId {
    if (!Object.hasOwn(FRAME_SCHEMAS, event))
      throw new ProtocolError(`an unknown frame '${event.slice(0, 40)}'`);
    const kind = event as FrameKind;
    const frameId = parseFrameId(id);
    if (!frameId) throw new ProtocolError(`a frame without a valid id`);
    if (previous && frameId.token === previous.token && frameId.seq <= previous.seq)
      throw new ProtocolError(`the frame id went back from ${previous.seq} to ${frameId.seq}`);
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      throw new ProtocolError(`a ${kind} frame that is not JSON`);
    }
    const checked = fromServer<FrameData[FrameKind]>(FRAME_SCHEMAS[kind], value, `a ${kind} frame`);
    const position = this.#position;
    if (kind === 'state') {
      this.#applyState(checked as SessionState);
    } else {
      if (!position || position.token !== frameId.token)
        throw new ProtocolError('a frame of another copy of the session, with no state before it');
      // Already applied through an earlier stream.
      if (frameId.seq <= position.seq) return frameId;
      this.#applyFrame(kind, checked);
    }
    this.#position = frameId;
    this.#lastId = id;
    return frameId;
  }

  #applyState(state: SessionState): void {
    if (state.id !== this.id) throw new ProtocolError('the state of another session');
    this.#messages = state.messages;
    this.#streamMessages = state.messages;
    this.#interrupted = state.interruptedTurn;
    this.#setConversation(state.conversation);
    this.#settleEnded(state);
  }

  #applyFrame(kind: Exclude<FrameKind, 'state'>, data: unknown): void {
    if (kind === 'patch') {
      this.#applyPatch(data as SessionPatch);
    } else if (kind === 'event') {
      const { event, patch } = data as EventFrame;
      if (event.sessionId !== this.id) throw new ProtocolError('an event of another session');
      if (patch) this.#applyPatch(patch);
      this.#emit(event, this.#conversation.items);
    } else if (kind === 'delta') {
      // A streamed delta of the running turn that grew answer item `i` by its text.
      const { s: sequence, i: at, t: text, r: reasoning } = data as DeltaFrame;
      if ((text === undefined) === (reasoning === undefined))
        throw new ProtocolError('a delta frame with neither or both of t and r');
      const turnId = this.#conversation.turn?.id ?? null;
      if (turnId === null) throw new ProtocolError('a delta frame while no turn runs');
      this.#applyPatch({
        length: this.#conversation.items.length,
        grow: [{ at, text: text ?? '', reasoning: reasoning ?? '' }],
      });
      this.#emit({
        sessionId: this.id,
        turnId,
        timestamp: new Date().toISOString(),
        sequence,
        payload:
          text !== undefined ? { type: 'text_delta', text } : { type: 'reasoning_delta', text: reasoning! },
      });
    } else {
      const result = data as WireResult;
      this.#interrupted = result.interruptedTurn;
      this.#turns.get(result.turnId)?._result(result);
    }
  }

  /** Applies what changed in the conversation and the history. */
  #applyPatch(patch: SessionPatch): void {
    // Both first: a patch that does not fit changes nothing.
    const next = applyPatch(this.#conversation, patch);
    if (patch.messages) this.#messages = this.#streamMessages = applySplice(this.#streamMessages, patch.messages);
    this.#setConversation(next);
  }

  /** Hands `event` on; with `items` (an event frame's), its turn's approvals follow them. */
  #emit(event: AgentEvent, items?: readonly ConversationItem[]): void {
    this.#events.next(event);
    if (event.turnId !== null) this.#turns.get(event.turnId)?._event(event, items);
  }

  #setConversation(next: Conversation): void {
    this.#conversation = next;
    this.#changes.next(next);
  }

  /** Reads the history and the interrupted turn again (after a command that changed them). */
  async #refresh(): Promise<void> {
    const state = fromServer<SessionState>(
      ReadStateSchema,
      await call(this.#transport, 'GET', `/sessions/${seg(this.id)}`),
      'a session state',
    );
    this.#messages = state.messages;
    this.#interrupted = state.interruptedTurn;
  }
}

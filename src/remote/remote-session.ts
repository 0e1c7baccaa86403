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
import type { Conversation } from '../conversation/schema.js';
import type { AgentEvent, InterruptedTurn, Message, UserInput } from '../types.js';
import { applyPatch, applySplice } from './apply-patch.js';
import { call, errorOf, seg, send, type RemoteTransport } from './remote-http.js';
import { RemoteTurn } from './remote-turn.js';
import { readSse, SseLimitError } from './sse-reader.js';
import * as z from 'zod/mini';
import {
  FRAME_SCHEMAS,
  MAX_FRAME_BYTES,
  parseFrameId,
  ReadStateSchema,
  TURN_ID_HEADER,
  type DeltaFrame,
  type EventFrame,
  type FrameId,
  type FrameKind,
  type SessionPatch,
  type SessionState,
  type WireResult,
} from './wire.js';

/** A `state` frame carries the whole history and is read whatever its size; any other is bounded. */
const frameLimit = (event: string) => (event === 'state' ? Number.POSITIVE_INFINITY : MAX_FRAME_BYTES);

/** Reconnects after a broken stream before a turn is given up as lost. */
const MAX_RECONNECTS = 12;

/** The wait before reconnect `n` (1-based): 200 ms doubling to 5 s, with jitter. */
const backoff = (n: number) => Math.min(5_000, 200 * 2 ** (n - 1)) * (0.5 + Math.random() / 2);

/** The options of a remote turn: as a local turn's, with `output` naming one of the server's `outputs`. */
export interface RemoteSendOptions {
  output?: { name: string; maxRepairs?: number };
  budget?: { maxCost?: number; maxTokens?: number };
}

/** A message from the server that breaks the protocol. */
class ProtocolError extends AgentError {
  constructor(message: string) {
    super('INVALID_INPUT', `the server sent an invalid message: ${message}`);
  }
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
    return this.#startTurn<T>('turns', { input, ...(options !== undefined && { options }) });
  }

  /** Continues the interrupted turn under its id (`INVALID_INPUT` when there is none). */
  async continueTurn(options?: { rerunMaybeExecuted?: boolean }): Promise<RemoteTurn> {
    const turn = await this.#startTurn('continue', options === undefined ? {} : { options });
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
    const response = await send(this.#transport, 'POST', `/sessions/${seg(this.id)}/${route}`, {
      body,
      lastEventId: this.#lastId,
      signal: controller.signal,
    });
    if (!response.ok) {
      this.#follow();
      throw await errorOf(response);
    }
    const turnId = response.headers.get(TURN_ID_HEADER);
    if (!turnId || !response.body) {
      void response.body?.cancel();
      throw new ProtocolError('a turn without its id');
    }
    const turn = new RemoteTurn<T>(turnId, this.id, this.#transport);
    this.#turns.set(turnId, turn as RemoteTurn);
    void turn.result.then(() => this.#turns.delete(turnId));
    void this.#pump({ controller, turn: turn as RemoteTurn }, response);
    return turn;
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
        if (this.#observers === 0 && this.#link && this.#link.turn === null) {
          this.#link.controller.abort();
          this.#link = null;
        }
      };
    });
  }

  /** Opens the follow stream when someone watches and no stream is open. */
  #follow(): void {
    if (this.#closed || this.#link || this.#observers === 0) return;
    void this.#pump({ controller: new AbortController(), turn: null }, null);
  }

  /** Reads one link's frames, reconnecting from the last applied frame while the link is needed. */
  async #pump(link: Link, first: Response | null): Promise<void> {
    // A follow stream opened while the turn was being started gives way to the turn's.
    const before = this.#link;
    if (link.turn && before && before !== link && before.turn === null) before.controller.abort();
    this.#link = link;
    const { signal } = link.controller;
    let response = first;
    let failures = 0;
    const needed = () =>
      !this.#closed && !signal.aborted && (link.turn ? !link.turn.settled : this.#observers > 0);
    while (needed()) {
      try {
        response ??= await send(this.#transport, 'GET', `/sessions/${seg(this.id)}/events`, {
          lastEventId: this.#lastId,
          signal,
        });
        if (!response.ok) {
          const error = await errorOf(response);
          if (response.status < 500) return this.#lost(link, error);
          throw error;
        }
        if (!response.body) throw new ProtocolError('a stream without a body');
        let previous: FrameId | null = null;
        for await (const message of readSse(response.body, frameLimit)) {
          if (signal.aborted) break;
          previous = this.#apply(message.event, message.id, message.data, previous);
          // Progress, not a state read back from storage (which another instance's session answers with).
          if (message.event !== 'state') failures = 0;
          if (!needed()) break;
        }
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof ProtocolError) return this.#lost(link, error);
        if (error instanceof SseLimitError) return this.#lost(link, new ProtocolError(error.message));
      }
      response = null;
      if (!needed()) break;
      // A turn is given up after so many tries; a follow stream keeps trying, at the slowest pace.
      if (++failures > MAX_RECONNECTS && link.turn) {
        return this.#lost(
          link,
          new AgentError('INTERNAL_ERROR', 'the server could not be reached again', { retryable: true }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, backoff(Math.min(failures, MAX_RECONNECTS))));
    }
    this.#unlink(link);
  }

  #unlink(link: Link): void {
    if (this.#link !== link) return;
    this.#link = null;
    if (link.turn) this.#follow();
  }

  /** A link that cannot go on: its turn fails with `error`; the conversation stays as it was. */
  #lost(link: Link, error: AgentError): void {
    link.turn?._fail(error);
    if (this.#link === link) this.#link = null;
    // A server that breaks the protocol is not followed again; one that is only unreachable is,
    // for whoever still watches.
    if (error instanceof ProtocolError) for (const turn of this.#turns.values()) turn._fail(error);
    else if (link.turn) this.#follow();
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
    const parsed = z.safeParse(FRAME_SCHEMAS[kind] as z.ZodMiniType, value);
    if (!parsed.success)
      throw new ProtocolError(
        `a ${kind} frame of the wrong shape (${parsed.error.issues[0]?.path.join('.') ?? ''})`,
      );
    const position = this.#position;
    if (kind === 'state') {
      this.#applyState(parsed.data as unknown as SessionState);
    } else {
      if (!position || position.token !== frameId.token)
        throw new ProtocolError('a frame of another copy of the session, with no state before it');
      // Already applied through an earlier stream.
      if (frameId.seq <= position.seq) return frameId;
      this.#applyFrame(kind, parsed.data);
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
    // A turn this client waits for that no longer runs there ended while the stream was down
    // (the state carries the last turn's result), or the instance running it stopped: its
    // frames are gone.
    for (const turn of this.#turns.values()) {
      if (state.conversation.turn?.id === turn.id) continue;
      if (state.lastTurn?.turnId === turn.id) {
        turn._result(state.lastTurn.result);
        continue;
      }
      const cut = state.interruptedTurn?.turnId === turn.id;
      turn._fail(
        new AgentError(
          'SESSION_CLOSED',
          cut
            ? 'the instance that ran this turn stopped: it is in session.interruptedTurn'
            : 'the turn ended while the connection was down: see session.conversation',
        ),
      );
    }
  }

  #applyFrame(kind: Exclude<FrameKind, 'state'>, data: unknown): void {
    if (kind === 'patch') {
      this.#applyPatch(data as SessionPatch);
    } else if (kind === 'event') {
      const { event, patch } = data as EventFrame;
      if (event.sessionId !== this.id) throw new ProtocolError('an event of another session');
      if (patch) this.#applyPatch(patch);
      this.#emit(event);
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
    let next: Conversation;
    let messages = this.#streamMessages;
    try {
      next = applyPatch(this.#conversation, patch);
      if (patch.messages) messages = applySplice(messages, patch.messages);
    } catch (error) {
      throw new ProtocolError((error as Error).message);
    }
    if (patch.messages) this.#messages = this.#streamMessages = messages;
    this.#setConversation(next);
  }

  #emit(event: AgentEvent): void {
    this.#events.next(event);
    if (event.turnId !== null) this.#turns.get(event.turnId)?._event(event);
  }

  #setConversation(next: Conversation): void {
    this.#conversation = next;
    this.#changes.next(next);
  }

  /** Reads the history and the interrupted turn again (after a command that changed them). */
  async #refresh(): Promise<void> {
    const parsed = z.safeParse(
      ReadStateSchema,
      await call(this.#transport, 'GET', `/sessions/${seg(this.id)}`),
    );
    if (!parsed.success) throw new ProtocolError('a session state of the wrong shape');
    const state = parsed.data as unknown as SessionState;
    this.#messages = state.messages;
    this.#interrupted = state.interruptedTurn;
  }
}

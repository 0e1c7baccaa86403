/**
 * `HostedSession`: one session this instance holds for its owner — the `Agent` the factory built
 * for it, the open `Session`, the frames it streams (every event and every conversation change,
 * numbered for replay), the turn in flight, and the idle timer that releases it when nothing
 * uses it.
 * @module
 */
import type { Agent } from '../agent.js';
import type { Conversation } from '../conversation/schema.js';
import type { RunningTurn, Session } from '../session.js';
import type { AgentEvent, Message, TurnResult } from '../types.js';
import { ZERO_USAGE } from '../vocabulary/usage.js';
import { frameId, type LastTurn, type SessionPatch, type SessionState, type WireResult } from '../remote/wire.js';
import { diffConversation, type StreamedDelta } from './conversation-diff.js';
import { encodeFrame, FrameLog, type FrameRecord } from './frame-log.js';
import { diffHistory } from './history-diff.js';
import { SseWriter } from './sse-writer.js';
import { serverPort, type AgentServerPort } from '../runtime/server-port.js';
import type { AgentError } from '../errors.js';
import { FrameRedactor } from './frame-redactor.js';
import { publicErrorData } from './public-error.js';

/** What a hosted session is told by its host. */
export interface HostedSessionOptions {
  idleTimeoutMs: number;
  /** The most bytes a stream may queue for a slow client before it is disconnected. */
  maxStreamBufferBytes: number;
  /**
   * Called once the session ended here (closed, released, interrupted, or taken over by another
   * instance) and its agent is shut down.
   */
  onEnded: () => void;
  /** Gets the detail of an error whose frames carry only its code's fixed sentence. */
  onError: (error: AgentError) => void;
}

/** One session held by this instance. */
export class HostedSession {
  readonly log = new FrameLog();
  /** The turn in flight, started here. */
  running: RunningTurn | null = null;
  /** The running turn, when this instance recovered it (its instance had stopped). */
  recovered: RunningTurn | null = null;
  /** Keeps infrastructure detail out of the frames. */
  readonly #redactor: FrameRedactor;
  /** The conversation as the frames sent so far make it. */
  #sent!: Conversation;
  /** The conversation now (ahead of {@link HostedSession.#sent} until the next frame). */
  #latest!: Conversation;
  /** The history as the frames sent so far make it (references to the session's messages). */
  #sentMessages: readonly Message[];
  #flushQueued = false;
  /** The events of the latest turn, for streams that map a turn afresh from its start (`/chat`). */
  #turnEvents: AgentEvent[] = [];
  readonly #eventListeners = new Set<(event: AgentEvent | null) => void>();
  #lastTurn: LastTurn | null = null;
  /**
   * The state as the running turn began, and the frame it was shown at: a client that cannot
   * replay from its own position (it followed another copy, one that stopped) gets it, then
   * every frame of the turn from its start (a recovered turn's `turn_resumed` first).
   */
  #turnStart: { seq: number; state: SessionState } | null = null;
  #streams = 0;
  #commands = 0;
  #idle: ReturnType<typeof setTimeout> | null = null;
  #ended = false;
  /** Set once the session began to end here, whichever way; settles once it has ended. */
  #ending: Promise<void> | null = null;
  /** Whether `#ending` is the full close path. */
  #closing = false;
  /** What the server entry uses of the agent beyond its public API. */
  readonly server: AgentServerPort;

  constructor(
    readonly agent: Agent,
    readonly session: Session,
    readonly owner: string,
    private readonly options: HostedSessionOptions,
  ) {
    this.#redactor = new FrameRedactor(options.onError);
    this.server = serverPort(agent);
    this.#sentMessages = [...session.messages];
    session.conversation.subscribe({
      next: (state) => {
        if (this.#sent === undefined) this.#sent = this.#shown(state);
        this.#latest = state;
        // The event that made this change, if any, comes right after it and carries it; a
        // change no event made (a message appended, a turn started or ended) goes out on its own.
        if (!this.#flushQueued) {
          this.#flushQueued = true;
          queueMicrotask(() => this.#flush());
        }
      },
      complete: () => this.#stopped(),
    });
    session.events.subscribe((event) => {
      const safe = this.#redactor.event(event);
      this.#onEvent(safe);
      this.#recordTurnEvent(safe);
    });
    this.#touch();
  }

  /** The session id. */
  get id(): string {
    return this.session.id;
  }

  /** Whether the session ended here. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * While the session is ending here (released, closed, interrupted, taken over): settles once it
   * has ended. `null` while it is open. A request that finds it ending waits, then opens it again.
   */
  get ending(): Promise<void> | null {
    return this.#ending;
  }

  /** The session as the frames sent so far make it (so the frames after it apply to it). */
  state(): SessionState {
    this.#flush();
    return {
      id: this.session.id,
      messages: this.#sentMessages,
      conversation: this.#sent,
      interruptedTurn: interruptedOf(this.session),
      lastTurn: this.#lastTurn,
    };
  }

  /** One frame per event, with the change it made: a short `delta` frame for a streamed delta. */
  #onEvent(event: AgentEvent): void {
    const { payload } = event;
    const delta: StreamedDelta | null =
      payload.type === 'text_delta'
        ? { text: payload.text, reasoning: '' }
        : payload.type === 'reasoning_delta'
          ? { text: '', reasoning: payload.text }
          : null;
    const length = this.#sent.items.length;
    const patch = this.#patch(delta);
    if (
      delta !== null &&
      patch !== null &&
      patch.length === length &&
      isGrowthOnly(patch) &&
      event.turnId === this.#sent.turn?.id
    ) {
      const grow = patch.grow![0]!;
      const data =
        payload.type === 'text_delta'
          ? { s: event.sequence, i: grow.at, t: delta.text }
          : { s: event.sequence, i: grow.at, r: delta.reasoning };
      this.log.push('delta', data);
      return;
    }
    this.log.push('event', patch === null ? { event } : { event, patch });
  }

  #recordTurnEvent(event: AgentEvent): void {
    if (event.turnId === null) return;
    if (this.#turnEvents[0]?.turnId !== event.turnId) this.#turnEvents = [];
    this.#turnEvents.push(event);
    for (const listener of [...this.#eventListeners]) listener(event);
  }

  /**
   * The events of `turnId` so far (empty unless it is the latest turn), then each as it comes;
   * `null` once the session ends here. Returns the way to stop listening.
   */
  followTurn(turnId: string, listener: (event: AgentEvent | null) => void): () => void {
    for (const event of this.#turnEvents[0]?.turnId === turnId ? [...this.#turnEvents] : []) listener(event);
    if (this.#ended) {
      listener(null);
      return () => {};
    }
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /**
   * The conversation as clients see it. A turn parked for approval (taken over after its
   * instance stopped, not continued yet) is the session's turn, awaiting approval, with its calls
   * awaiting it: as a state read from storage shows it, so `activeTurn` finds it wherever the
   * client reconnects, and the clients waiting for it keep waiting.
   */
  #shown(conversation: Conversation): Conversation {
    // A turn shown running (every streamed delta) needs nothing more.
    if (conversation.turn !== null) return conversation;
    const parked = this.session.interruptedTurn;
    if (!parked?.pendingApprovals.length) return conversation;
    const awaiting = new Set(parked.pendingApprovals.map((approval) => approval.callId));
    return {
      ...conversation,
      turn: { id: parked.turnId, status: 'awaiting_approval' },
      // Not the result a reload derived for each unfinished call: that goes once it continues.
      items: conversation.items.map((item) => {
        if (item.kind !== 'tool' || !awaiting.has(item.callId)) return item;
        const { output: _derived, durationMs: _none, ...call } = item;
        return { ...call, status: 'awaiting_approval' as const };
      }),
    };
  }

  /**
   * The interrupted turn `turnId` was discarded here: its clients settle with its end, a
   * cancelled turn, as the stored history has it.
   */
  discarded(turnId: string): void {
    this.#flush();
    const wire: WireResult = {
      turnId,
      status: 'cancelled',
      usage: ZERO_USAGE,
      cost: null,
      interruptedTurn: null,
    };
    this.log.push('result', wire, turnId);
    this.#lastTurn = { turnId, result: wire };
    this.log.clear();
  }

  /** A change no event made goes out as a `patch` frame. */
  #flush(): void {
    this.#flushQueued = false;
    const patch = this.#patch(null);
    if (patch !== null) this.log.push('patch', patch);
  }

  /** What changed since the last frame (and counts it as sent); `null` when nothing did. */
  #patch(delta: StreamedDelta | null): SessionPatch | null {
    // An error notice the redactor heard of reads its code's fixed sentence.
    const latest = this.#shown(this.#redactor.conversation(this.#latest));
    const conversation = diffConversation(this.#sent, latest, delta);
    this.#sent = latest;
    // A streamed delta never changes the history: what did change goes with the next frame.
    const messages = delta === null ? diffHistory(this.#sentMessages, this.session.messages) : null;
    if (messages !== null) this.#sentMessages = [...this.session.messages];
    if (conversation === null && messages === null) return null;
    const patch: SessionPatch = conversation ?? { length: this.#sent.items.length };
    if (messages !== null) patch.messages = messages;
    return patch;
  }

  /** Runs a command with the idle timer held off. */
  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.#commands++;
    this.#touch();
    try {
      return await work();
    } finally {
      this.#commands--;
      this.#touch();
    }
  }

  /**
   * Follows a turn started here: its result becomes a `result` frame, and the session's last
   * turn; then the turn's frames are dropped (a client that missed them gets the state).
   */
  track(turn: RunningTurn, recovered = false): void {
    this.running = turn;
    this.recovered = recovered ? turn : null;
    // The turn's start goes out first; the interrupted turn it continues is no longer one.
    const start = this.state();
    const interruptedTurn = start.interruptedTurn?.turnId === turn.id ? null : start.interruptedTurn;
    this.#turnStart = { seq: this.log.seq, state: { ...start, interruptedTurn } };
    this.#touch();
    void turn.result.then(async (result) => {
      // The conversation shows a turn until its result settles; let that change go out first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.#flush();
      const wire = this.#wireResult(turn.id, result);
      this.log.push('result', wire, turn.id);
      this.#lastTurn = { turnId: turn.id, result: wire };
      this.#turnStart = null;
      this.log.clear();
      if (this.running === turn) this.running = null;
      this.#touch();
    });
  }

  /**
   * An SSE response: what follows `lastEventId` (or the state now, when this copy cannot replay
   * from there), then every frame as it comes, until the session ends here or, with `untilTurn`,
   * until that turn's result. Closing it (the client going away) changes nothing else.
   */
  stream(lastEventId: string | null, untilTurn: string | null, signal: AbortSignal): Response {
    let unlisten = () => {};
    this.#streams++;
    this.#touch();
    const writer = new SseWriter({
      maxBufferedBytes: this.options.maxStreamBufferBytes,
      stallTimeoutMs: this.options.idleTimeoutMs,
      signal,
      onClose: () => {
        unlisten();
        this.#streams--;
        this.#touch();
      },
    });
    const ends = (record: FrameRecord) => record.kind === 'result' && record.turnId === untilTurn;
    let replay = this.log.after(lastEventId);
    let done = false;
    const start = this.#turnStart;
    if (replay === null && start !== null) {
      // A running turn, as it began, then all of it (while its frames are all kept).
      const startId = frameId(this.log.token, start.seq);
      replay = this.log.after(startId);
      if (replay !== null) writer.write(encodeFrame(startId, 'state', start.state));
    }
    if (replay === null) {
      const state = this.state();
      writer.write(encodeFrame(this.log.position, 'state', state));
      done = untilTurn !== null && this.#lastTurn?.turnId === untilTurn;
    } else {
      for (const record of replay) {
        writer.write(record.bytes);
        if (ends(record)) {
          done = true;
          break;
        }
      }
    }
    if (done || this.#ended || !writer.open) {
      writer.close();
      return writer.response;
    }
    unlisten = this.log.listen((record) => {
      if (record === null) return writer.close();
      writer.write(record.bytes);
      if (ends(record)) writer.close();
    });
    return writer.response;
  }

  /**
   * Releases the session as a closed page does (no `session_end`, no memory extraction; a
   * running turn is cancelled), then shuts its agent down.
   */
  release(): Promise<void> {
    this.#ending ??= this.#leave(() => this.server.release());
    return this.#ending;
  }

  /**
   * Stops the session here at once, storing nothing more: a running turn is left interrupted (no
   * `turn_ended`) for the instance that opens the session next, and the lock is given back. Its
   * streams end first, so no client hears a cancel that is not stored.
   */
  interrupt(): Promise<void> {
    if (this.#ending === null) {
      this.log.end();
      this.#ending = this.#leave(() => this.server.interrupt());
    }
    return this.#ending;
  }

  /**
   * Closes the session (its full close path: `session_end`, memory extraction), then shuts its
   * agent down. `false` when the session was already ending another way (a release, a take-over):
   * it has ended once this settles, without the close path, and the caller opens it again.
   */
  async close(): Promise<boolean> {
    if (this.#ending === null) {
      this.#closing = true;
      this.#ending = this.#leave(() => this.session.close());
    }
    const closing = this.#closing;
    await this.#ending;
    return closing;
  }

  /** Ends the session by `stop`, then shuts its agent down; never rejects. */
  async #leave(stop: () => Promise<void>): Promise<void> {
    // Called before `#ending` is set: stop the idle timer here rather than through `#touch`.
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.#idle = null;
    try {
      await stop();
    } catch {
      // the session's own close reports what failed in it; it is over here either way
    }
    await this.agent.shutdown();
    this.#ended = true;
    this.#endStreams();
    this.options.onEnded();
  }

  #wireResult(turnId: string, result: TurnResult): WireResult {
    return {
      turnId,
      status: result.status,
      usage: result.usage,
      cost: result.cost,
      ...(result.output !== undefined && { output: result.output }),
      ...(result.error !== undefined && { error: publicErrorData(result.error.toJSON()) }),
      interruptedTurn: interruptedOf(this.session),
    };
  }

  /** Starts the idle timer when nothing uses the session, stops it otherwise. */
  #touch(): void {
    if (this.#idle !== null) {
      clearTimeout(this.#idle);
      this.#idle = null;
    }
    if (this.#ending !== null || this.running !== null || this.#streams > 0 || this.#commands > 0) return;
    this.#idle = setTimeout(() => void this.release(), this.options.idleTimeoutMs);
    // A released session needs no process kept alive for it.
    this.#idle.unref?.();
  }

  /** Ends every stream of this copy: the frame log's and the turn followers'. */
  #endStreams(): void {
    this.log.end();
    for (const listener of [...this.#eventListeners]) listener(null);
    this.#eventListeners.clear();
  }

  /** The session stopped (its conversation completed): its streams end. */
  #stopped(): void {
    this.#endStreams();
    // A session that ended by itself (taken over by another instance) frees its agent too.
    this.#ending ??= this.#leave(async () => {});
  }
}

/** Whether a patch is one answer item's growth and nothing else. */
function isGrowthOnly(patch: SessionPatch): boolean {
  return (
    patch.grow?.length === 1 &&
    patch.set === undefined &&
    patch.messages === undefined &&
    !('turn' in patch || 'usage' in patch || 'cost' in patch || 'context' in patch)
  );
}

/** The session's interrupted turn, as plain data for the wire. */
function interruptedOf(session: Session): WireResult['interruptedTurn'] {
  const turn = session.interruptedTurn;
  if (!turn) return null;
  return {
    ...turn,
    pendingApprovals: [...turn.pendingApprovals],
    unfinishedToolCalls: [...turn.unfinishedToolCalls],
  };
}

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
import type { LastTurn, SessionPatch, SessionState, WireResult } from '../remote/wire.js';
import { diffConversation, type StreamedDelta } from './conversation-diff.js';
import { encodeFrame, FrameLog, type FrameRecord } from './frame-log.js';
import { diffHistory } from './history-diff.js';
import { SseWriter } from './sse-writer.js';

/** What a hosted session is told by its host. */
export interface HostedSessionOptions {
  idleTimeoutMs: number;
  /** The most bytes a stream may queue for a slow client before it is disconnected. */
  maxStreamBufferBytes: number;
  /** Called once the session ended here (closed, released, or taken over by another instance). */
  onEnded: () => void;
}

/** One session held by this instance. */
export class HostedSession {
  readonly log = new FrameLog();
  /** The turn in flight, started here. */
  running: RunningTurn | null = null;
  /** The conversation as the frames sent so far make it. */
  #sent!: Conversation;
  /** The conversation now (ahead of {@link HostedSession.#sent} until the next frame). */
  #latest!: Conversation;
  /** The history as the frames sent so far make it (references to the session's messages). */
  #sentMessages: readonly Message[];
  #flushQueued = false;
  #lastTurn: LastTurn | null = null;
  #streams = 0;
  #commands = 0;
  #idle: ReturnType<typeof setTimeout> | null = null;
  #ended = false;
  #ending: Promise<void> | null = null;

  constructor(
    readonly agent: Agent,
    readonly session: Session,
    readonly owner: string,
    private readonly options: HostedSessionOptions,
  ) {
    this.#sentMessages = [...session.messages];
    session.conversation.subscribe({
      next: (state) => {
        if (this.#sent === undefined) this.#sent = state;
        this.#latest = state;
        // The event that made this change, if any, comes right after it and carries it; a
        // change no event made (a message appended, a turn started or ended) goes out on its own.
        if (!this.#flushQueued) {
          this.#flushQueued = true;
          queueMicrotask(() => this.#flush());
        }
      },
      complete: () => this.#end(),
    });
    session.events.subscribe((event) => this.#onEvent(event));
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

  /** A change no event made goes out as a `patch` frame. */
  #flush(): void {
    this.#flushQueued = false;
    const patch = this.#patch(null);
    if (patch !== null) this.log.push('patch', patch);
  }

  /** What changed since the last frame (and counts it as sent); `null` when nothing did. */
  #patch(delta: StreamedDelta | null): SessionPatch | null {
    const conversation = diffConversation(this.#sent, this.#latest, delta);
    this.#sent = this.#latest;
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
  track(turn: RunningTurn): void {
    this.running = turn;
    this.#touch();
    void turn.result.then(async (result) => {
      // The conversation shows a turn until its result settles; let that change go out first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      this.#flush();
      const wire = this.#wireResult(turn.id, result);
      this.log.push('result', wire, turn.id);
      this.#lastTurn = { turnId: turn.id, result: wire };
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
    const replay = this.log.after(lastEventId);
    let done = false;
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
    this.#ending ??= this.#drop().then(() => this.#shutdown());
    return this.#ending;
  }

  /**
   * The dropped-handle path of the Session machine (what a garbage-collected handle takes):
   * resolves once the session has ended. A session already closing goes its own way.
   */
  #drop(): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      if (this.#ended) return resolve();
      this.session.conversation.subscribe({ complete: () => resolve() });
    });
    const ref = this.agent.actor.getSnapshot().children.session;
    const snapshot = ref?.getSnapshot();
    if (snapshot?.status === 'active' && snapshot.context.closeRequested === null)
      ref!.send({ type: 'DROP' });
    return ended;
  }

  /** Closes the session (its full close path), then shuts its agent down. */
  close(): Promise<void> {
    this.#ending ??= this.session.close().then(() => this.#shutdown());
    return this.#ending;
  }

  async #shutdown(): Promise<void> {
    this.#end();
    await this.agent.shutdown();
  }

  #wireResult(turnId: string, result: TurnResult): WireResult {
    return {
      turnId,
      status: result.status,
      usage: result.usage,
      cost: result.cost,
      ...(result.output !== undefined && { output: result.output }),
      ...(result.error !== undefined && { error: result.error.toJSON() }),
      interruptedTurn: interruptedOf(this.session),
    };
  }

  /** Starts the idle timer when nothing uses the session, stops it otherwise. */
  #touch(): void {
    if (this.#idle !== null) {
      clearTimeout(this.#idle);
      this.#idle = null;
    }
    if (this.#ended || this.running !== null || this.#streams > 0 || this.#commands > 0) return;
    this.#idle = setTimeout(() => void this.release(), this.options.idleTimeoutMs);
    // A released session needs no process kept alive for it.
    this.#idle.unref?.();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#idle !== null) clearTimeout(this.#idle);
    this.log.end();
    this.options.onEnded();
    // A session that ended by itself (taken over by another instance) frees its agent too.
    if (this.#ending === null) this.#ending = this.agent.shutdown();
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

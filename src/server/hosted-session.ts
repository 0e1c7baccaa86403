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
import type { TurnResult } from '../types.js';
import type { SessionState, WireResult } from '../remote/wire.js';
import { diffConversation } from './conversation-diff.js';
import type { AgentError } from '../errors.js';
import { FrameLog, frameText, type FrameRecord } from './frame-log.js';
import { FrameRedactor } from './frame-redactor.js';
import { HEARTBEAT_MS, SSE_HEADERS } from './http.js';
import { publicErrorData } from './public-error.js';

/** Frames a stream may have queued for a slow client before it is closed (the client reconnects). */
const MAX_QUEUED_FRAMES = 10_000;

/** How many ended turns' results a copy remembers for a client that missed their frames. */
const KEPT_RESULTS = 8;

/** What a hosted session is told by its host. */
export interface HostedSessionOptions {
  idleTimeoutMs: number;
  /** Called once the session ended here (closed, released, or taken over by another instance). */
  onEnded: () => void;
  /** Gets the detail of an error whose frames carry only its code's fixed sentence. */
  onError: (error: AgentError) => void;
}

/** One session held by this instance. */
export class HostedSession {
  readonly log = new FrameLog();
  /** The turn in flight, started here. */
  running: RunningTurn | null = null;
  /** The conversation as clients read it (see {@link FrameRedactor}). */
  #conversation!: Conversation;
  #rawConversation: Conversation | undefined;
  readonly #redactor: FrameRedactor;
  readonly #results = new Map<string, WireResult>();
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
    this.#redactor = new FrameRedactor(options.onError);
    session.conversation.subscribe({
      next: (state) => {
        this.#rawConversation = state;
        if (this.#conversation === undefined || !this.#redactor.waitsForEvent(state)) this.#publishConversation();
      },
      complete: () => this.#end(),
    });
    session.events.subscribe((event) => {
      const safe = this.#redactor.event(event);
      this.#publishConversation();
      this.log.push('event', safe, event.turnId);
    });
    this.#touch();
  }

  /** Sends what changed in the conversation since the last change sent, if anything did. */
  #publishConversation(): void {
    const raw = this.#rawConversation;
    if (raw === undefined) return;
    this.#rawConversation = undefined;
    const before = this.#conversation;
    const state = this.#redactor.conversation(raw);
    this.#conversation = state;
    const patch = before === undefined ? null : diffConversation(before, state);
    if (patch) this.log.push('patch', patch);
  }

  /** The session id. */
  get id(): string {
    return this.session.id;
  }

  /** Whether the session ended here. */
  get ended(): boolean {
    return this.#ended;
  }

  /** The session as it is now. */
  state(): SessionState {
    return {
      id: this.session.id,
      messages: this.session.messages,
      conversation: this.#conversation,
      interruptedTurn: interruptedOf(this.session),
    };
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

  /** Follows a turn started here: its result becomes a `result` frame. */
  track(turn: RunningTurn): void {
    this.running = turn;
    this.#touch();
    void turn.result.then(async (result) => {
      // The conversation shows a turn until its result settles; let that change go out first.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const wire = this.#wireResult(turn.id, result);
      this.#results.set(turn.id, wire);
      if (this.#results.size > KEPT_RESULTS) this.#results.delete(this.#results.keys().next().value!);
      this.log.push('result', wire, turn.id);
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
    let cleanup: () => void = () => {};
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        const encoder = new TextEncoder();
        let open = true;
        const ends = (record: FrameRecord) => record.kind === 'result' && record.turnId === untilTurn;
        const send = (text: string) => {
          if (!open) return;
          controller.enqueue(encoder.encode(text));
          // A client that reads far slower than the session writes: let it reconnect, and get
          // the frames it missed from the log, rather than queueing them here without a bound.
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_FRAMES) finish();
        };
        const finish = () => {
          if (!open) return;
          cleanup();
          try {
            controller.close();
          } catch {
            // already cancelled by the client
          }
        };
        cleanup = () => {
          if (!open) return;
          open = false;
          unlisten();
          clearInterval(heartbeat);
          signal.removeEventListener('abort', finish);
          this.#streams--;
          this.#touch();
        };
        this.#streams++;
        this.#touch();
        const replay = this.log.after(lastEventId);
        let done = false;
        if (replay === null) {
          send(frameText(this.log.position, 'state', this.state()));
          const result = untilTurn === null ? undefined : this.#results.get(untilTurn);
          done = result !== undefined;
        } else {
          for (const record of replay) {
            send(record.text);
            if (ends(record)) {
              done = true;
              break;
            }
          }
        }
        const unlisten = this.log.listen((record) => {
          if (record === null) return finish();
          send(record.text);
          if (ends(record)) finish();
        });
        const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
        heartbeat.unref?.();
        signal.addEventListener('abort', finish);
        if (done || this.#ended || signal.aborted) finish();
      },
      cancel: () => cleanup(),
    });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  }

  /** The result of a turn this copy ran, when it remembers it. */
  resultOf(turnId: string): WireResult | undefined {
    return this.#results.get(turnId);
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
      ...(result.error !== undefined && { error: publicErrorData(result.error.toJSON()) }),
      messages: [...this.session.messages],
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

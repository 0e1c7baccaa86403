/**
 * `HostedSession`: one session this instance holds for its owner — the `Agent` the factory built
 * for it, the open `Session`, the frames it streams (every event and every conversation change,
 * numbered for replay), the turn in flight, and the idle timer that releases it when nothing
 * uses it.
 * @module
 */
import type { Agent } from '../agent.js';
import type { Conversation } from '../conversation/schema.js';
import { serverPort, type AgentServerPort } from '../runtime/server-port.js';
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
  /** The conversation as clients read it (see {@link FrameRedactor}). */
  #conversation!: Conversation;
  #rawConversation: Conversation | undefined;
  readonly #redactor: FrameRedactor;
  readonly #results = new Map<string, WireResult>();
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
    session.conversation.subscribe({
      next: (state) => {
        this.#rawConversation = state;
        if (this.#conversation === undefined || !this.#redactor.waitsForEvent(state)) this.#publishConversation();
      },
      complete: () => this.#stopped(),
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

  /**
   * While the session is ending here (released, closed, interrupted, taken over): settles once it
   * has ended. `null` while it is open. A request that finds it ending waits, then opens it again.
   */
  get ending(): Promise<void> | null {
    return this.#ending;
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
  track(turn: RunningTurn, recovered = false): void {
    this.running = turn;
    this.recovered = recovered ? turn : null;
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
    this.log.end();
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
    if (this.#ending !== null || this.running !== null || this.#streams > 0 || this.#commands > 0) return;
    this.#idle = setTimeout(() => void this.release(), this.options.idleTimeoutMs);
    // A released session needs no process kept alive for it.
    this.#idle.unref?.();
  }

  /** The session stopped (its conversation completed): its streams end. */
  #stopped(): void {
    this.log.end();
    // A session that ended by itself (taken over by another instance) frees its agent too.
    this.#ending ??= this.#leave(async () => {});
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

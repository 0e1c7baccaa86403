/**
 * {@link SessionChangeFeed}: tells the other tabs (and the other agents of this tab) that a
 * session changed, over a `BroadcastChannel` per namespace, so that a session list or a
 * read-only view can refresh without polling.
 * @module
 */
import * as z from 'zod/mini';
// The class alone, not the rxjs barrel (see `src/events/channel.ts`).
import type { Observable } from 'rxjs/internal/Observable';
import { Channel } from '../events/channel.js';
import { parseInput } from '../validate.js';

/** What happened to a session, as another tab or agent reports it. */
export interface SessionChange {
  sessionId: string;
  kind: 'appended' | 'deleted' | 'locked' | 'released';
}

/** Options of {@link SessionChangeFeed}. */
export interface SessionChangeFeedOptions {
  /** The session storage's `namespace` (IndexedDB: its database name). Default `'default'`. */
  namespace?: string;
}

const SessionChangeSchema = z.object({
  sessionId: z.string().check(z.minLength(1)),
  kind: z.enum(['appended', 'deleted', 'locked', 'released']),
});

/**
 * A message on the channel. Every incoming one is validated, since the tab that posted it may
 * run another release; unknown extra fields are dropped, so a later release may add some.
 */
const WireMessageSchema = z.object({
  v: z.literal(1),
  sessionId: SessionChangeSchema.shape.sessionId,
  kind: SessionChangeSchema.shape.kind,
});

/**
 * Session changes shared across the tabs of an origin over
 * `BroadcastChannel('youyou-agent:<namespace>')`. `changes` emits what *other* feeds on the same
 * namespace post (a channel does not hear itself); messages that are not valid changes are
 * ignored. Where `BroadcastChannel` is missing, posts go nowhere and `changes` never emits.
 * Storages post nothing themselves: the runtime posts after its writes.
 * @example
 * const feed = new SessionChangeFeed({ namespace: 'my-app' });
 * const subscription = feed.changes.subscribe((change) => console.log(change.sessionId, change.kind));
 * feed.post({ sessionId: 's-1', kind: 'appended' });
 * subscription.unsubscribe();
 * feed.close();
 */
export class SessionChangeFeed {
  /** The channel's name. */
  readonly channelName: string;
  readonly #channel: BroadcastChannel | null;
  readonly #changes = new Channel<SessionChange>({ replay: false });
  #closed = false;

  /** Changes posted by the other feeds on this namespace; completes on `close()`. */
  readonly changes: Observable<SessionChange> = this.#changes.observable;

  constructor(options: SessionChangeFeedOptions = {}) {
    const namespace = parseInput(
      z.optional(z.string().check(z.minLength(1))),
      options.namespace,
      'namespace',
    );
    this.channelName = `youyou-agent:${namespace ?? 'default'}`;
    const Broadcast = globalThis.BroadcastChannel as typeof BroadcastChannel | undefined;
    this.#channel = Broadcast ? new Broadcast(this.channelName) : null;
    if (this.#channel) {
      // Node keeps its process alive while a channel is open; a feed must not.
      (this.#channel as { unref?: () => void }).unref?.();
      this.#channel.onmessage = (message: MessageEvent<unknown>) => this.#receive(message.data);
    }
  }

  /** Tells the other feeds about `change`; ignored after `close()`. Bad input → `INVALID_INPUT`. */
  post(change: SessionChange): void {
    const { sessionId, kind } = parseInput(SessionChangeSchema, change, 'change');
    if (this.#closed) return;
    this.#channel?.postMessage({ v: 1, sessionId, kind });
  }

  /** Closes the channel and completes `changes`. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#channel?.close();
    this.#changes.complete();
  }

  #receive(data: unknown): void {
    const parsed = z.safeParse(WireMessageSchema, data);
    if (parsed.success) this.#changes.next({ sessionId: parsed.data.sessionId, kind: parsed.data.kind });
  }
}

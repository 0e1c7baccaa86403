/**
 * {@link ChangeFeed}: the `changes` of the PostgreSQL storage and lock. Every writer rings a
 * doorbell (`NOTIFY <schema>_changes` with a small JSON payload, delivered at commit); a feed
 * listens while anyone subscribes, reads what the bell is about from the tables, and emits it.
 * The payload only says where to look: what changed is always read from the rows.
 * @module
 */
// The class alone, not the rxjs barrel (see `src/events/channel.ts`).
import { Observable } from 'rxjs/internal/Observable';
import * as z from 'zod/mini';
import { Channel } from '../events/channel.js';
import type { SessionChange } from '../sync/session-change-feed.js';
import type { PostgresRunner } from './options.js';
import { parseJson } from './session-rows.js';

/** A doorbell's payload: `t` what rang (`s` sessions, `l` locks), `ns` and `id` where, `o` who. */
export interface Doorbell {
  t: 's' | 'l';
  ns?: string;
  id: string;
  o: string;
}

const DoorbellSchema = z.object({
  t: z.enum(['s', 'l']),
  ns: z.optional(z.string()),
  id: z.string().check(z.minLength(1)),
  o: z.string(),
});

/** Parses a payload; anything else (another app's `NOTIFY` on the channel) is `null`. */
export function parseDoorbell(payload: string): Doorbell | null {
  const parsed = z.safeParse(DoorbellSchema, parseJson(payload));
  return parsed.success ? parsed.data : null;
}

/**
 * The doorbells of one channel, heard over one `LISTEN` however many feeds want them: one per
 * `(sql, schema)` in a process (see `shared-schema.ts`). Listens while anyone subscribes.
 */
export class BellFeed {
  readonly #runner: PostgresRunner;
  readonly #channel: string;
  readonly #listeners = new Set<(payload: string) => void>();
  #unlisten: Promise<(() => Promise<void>) | null> | null = null;

  constructor(runner: PostgresRunner, channel: string) {
    this.#runner = runner;
    this.#channel = channel;
  }

  /** Hears every bell until the returned function is called. */
  subscribe(listener: (payload: string) => void): () => void {
    const own = (payload: string) => listener(payload);
    this.#listeners.add(own);
    if (this.#listeners.size === 1) this.#start();
    return () => {
      if (this.#listeners.delete(own) && this.#listeners.size === 0) this.#stop();
    };
  }

  /** Resolves once listening (or once listening failed: then the bells stay silent). */
  listening(): Promise<unknown> {
    return this.#unlisten ?? Promise.resolve();
  }

  #start(): void {
    const listen = this.#runner.sql.listen;
    if (!listen) return;
    // Bounded like a query: a pool with no free connection must not hold a lock's acquire.
    this.#unlisten = this.#runner
      .ready()
      .then(() =>
        this.#runner.bounded('listening for changes', () =>
          listen.call(
            this.#runner.sql,
            this.#channel,
            (payload) => {
              for (const listener of [...this.#listeners]) listener(payload);
            },
            { timeoutMs: this.#runner.timeoutMs },
          ),
        ),
      )
      .catch(() => null);
  }

  #stop(): void {
    const unlisten = this.#unlisten;
    this.#unlisten = null;
    void unlisten?.then((stop) => stop?.()).catch(() => {});
  }
}

/**
 * A feed of session changes from the doorbells of `channel`. `interpret` tells whether a bell
 * concerns this feed (else `null`) and reads what it means. Bells for one session that ring
 * while it is read are folded into one more read.
 */
export class ChangeFeed {
  readonly #bells: BellFeed;
  readonly #interpret: (bell: Doorbell) => Promise<SessionChange> | null;
  readonly #out = new Channel<SessionChange>({ replay: false });
  /** Sessions being read, and whether a bell rang again meanwhile. */
  readonly #reading = new Map<string, boolean>();
  #subscribers = 0;
  #unsubscribe: (() => void) | null = null;

  /** Listens while subscribed; never errors. */
  readonly observable: Observable<SessionChange>;

  constructor(bells: BellFeed, interpret: (bell: Doorbell) => Promise<SessionChange> | null) {
    this.#bells = bells;
    this.#interpret = interpret;
    this.observable = new Observable<SessionChange>((subscriber) => {
      const inner = this.#out.observable.subscribe(subscriber);
      if (this.#subscribers++ === 0) this.#start();
      return () => {
        inner.unsubscribe();
        if (--this.#subscribers === 0) this.#stop();
      };
    });
  }

  /** Resolves once listening (or once listening failed: then this feed stays silent). */
  listening(): Promise<unknown> {
    return this.#bells.listening();
  }

  #start(): void {
    this.#unsubscribe = this.#bells.subscribe((payload) => this.#ring(payload));
  }

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  #ring(payload: string): void {
    const bell = parseDoorbell(payload);
    if (!bell || this.#subscribers === 0) return;
    const key = `${bell.t}:${bell.id}`;
    if (this.#reading.has(key)) {
      this.#reading.set(key, true);
      return;
    }
    const read = this.#interpret(bell);
    if (!read) return;
    this.#reading.set(key, false);
    void read
      .then(
        (change) => this.#out.next(change),
        () => {}, // A failed read loses this bell only; the next one reads again.
      )
      .finally(() => {
        const again = this.#reading.get(key);
        this.#reading.delete(key);
        if (again) this.#ring(payload);
      });
  }
}

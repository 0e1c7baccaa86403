/**
 * `GET …/events` for a session another instance holds: a stream of its stored state, read
 * again whenever what is stored may have changed — when the agent's `sessionChanges` says so
 * (another instance appended, deleted, took or gave up the session's lease) and, while a turn
 * runs there, every second, for its draft (the partial text rings no bell). A `state` frame
 * goes out each time the state differs from the last one sent.
 *
 * The followers of one session on one instance share one reader ({@link StoredReader}): one
 * agent (the factory runs once for them, not once each), one read at a time, each state frame
 * encoded once. The reader stops when its last follower leaves, the session is deleted, a read
 * fails, or this instance comes to hold the session: its streams end, and their clients
 * reconnect (to the live copy, when it is held here).
 * @module
 */
import type { Agent } from '../agent.js';
import type { SessionState } from '../remote/wire.js';
import { FrameLog } from './frame-log.js';
import type { SessionHost } from './session-host.js';
import { SseWriter } from './sse-writer.js';
import { storedState } from './stored-state.js';

/** How often a running turn's draft is read again (drafts are saved at most this often). */
const DRAFT_READ_MS = 1_000;

/** How often an idle session is read again, for storages whose changes no feed reports. */
const IDLE_READ_MS = 5_000;

/**
 * Where a shared reader takes its room: `reserve` runs before the agent factory (it may throw,
 * e.g. `SERVER_BUSY`), and the function it returns when the reader stops. The host counts readers
 * toward its open-session limits through it.
 */
export interface StoredFollowRoom {
  reserve(userId: string, sessionId: string): () => void;
}

/** What the follow streams are opened with. */
export interface StoredFollowOptions {
  maxStreamBufferBytes: number;
  idleTimeoutMs: number;
  /** The host's room for readers; without it, readers are not counted. */
  room?: StoredFollowRoom;
}

/** The shared readers of each host, by user and session. */
const readers = new WeakMap<SessionHost, Map<string, StoredReader>>();

/**
 * A stream through the running reader of `sessionId` for `userId`, when there is one (then no
 * agent is built for this follower, not even to find out who holds the session); else `null`.
 */
export function joinStored(
  host: SessionHost,
  userId: string,
  sessionId: string,
  signal: AbortSignal,
  options: StoredFollowOptions,
): Promise<Response> | null {
  const reader = readers.get(host)?.get(`${userId}\u0000${sessionId}`);
  return reader && !reader.stopped ? reader.follow(signal, options) : null;
}

/**
 * The follow stream of `sessionId`, which `userId` owns and another instance holds. Rejects as
 * reading the stored state does (`SESSION_NOT_FOUND`, `STORAGE_ERROR`).
 */
export async function followStored(
  host: SessionHost,
  userId: string,
  sessionId: string,
  signal: AbortSignal,
  options: StoredFollowOptions,
): Promise<Response> {
  let byKey = readers.get(host);
  if (!byKey) readers.set(host, (byKey = new Map()));
  const key = `${userId}\u0000${sessionId}`;
  let reader = byKey.get(key);
  if (!reader || reader.stopped) {
    const release = options.room?.reserve(userId, sessionId) ?? (() => {});
    reader = new StoredReader(host, userId, sessionId, () => {
      if (byKey.get(key) === reader) byKey.delete(key);
      release();
    });
    byKey.set(key, reader);
  }
  return reader.follow(signal, options);
}

/** One session's stored state, read for every follower of it on this instance. */
export class StoredReader {
  readonly #log = new FrameLog();
  readonly #writers = new Set<SseWriter>();
  /** The last state sent, as JSON, and its frame. */
  #last = '';
  #lastFrame: Uint8Array | null = null;
  /** Settles once the first state was read (rejects when that read failed). */
  readonly #first: Promise<void>;
  #stopped = false;
  #reading = false;
  #again = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #agent: Agent | null = null;
  #release: () => void = () => {};

  constructor(
    private readonly host: SessionHost,
    private readonly userId: string,
    private readonly sessionId: string,
    private readonly onStop: () => void,
  ) {
    this.#first = new Promise<void>((resolve, reject) => {
      host
        .withAgent(userId, async (agent) => {
          this.#agent = agent;
          let first = await storedState(agent, sessionId);
          // Its holder stopped since the request looked: taken up here, the followers reconnect to it.
          const taken = await this.#takeUp(first);
          if (taken === 'here') {
            this.stop();
            return resolve();
          }
          // Taken up by another instance right now: the turn goes on there, not cut off.
          if (taken === 'elsewhere') first = goingOn(first);
          this.#send(first);
          const changes = agent.sessionChanges.subscribe((change) => {
            if (change.sessionId !== sessionId) return;
            if (change.kind === 'deleted') this.stop();
            else void this.#read();
          });
          this.#schedule(first.conversation.turn !== null);
          resolve();
          // The agent lives as long as the reader.
          await new Promise<void>((stopped) => (this.#release = stopped));
          changes.unsubscribe();
        })
        .catch((error: unknown) => {
          this.stop();
          reject(error);
        });
    });
  }

  /** Whether the reader stopped (a new follower starts a new one). */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** How many streams follow through this reader. */
  get followers(): number {
    return this.#writers.size;
  }

  /** A follower's stream: the last state, then each changed one. */
  async follow(signal: AbortSignal, options: StoredFollowOptions): Promise<Response> {
    await this.#first;
    const writer = new SseWriter({
      maxBufferedBytes: options.maxStreamBufferBytes,
      stallTimeoutMs: options.idleTimeoutMs,
      signal,
      onClose: () => {
        this.#writers.delete(writer);
        if (this.#writers.size === 0) this.stop();
      },
    });
    if (this.#stopped) {
      writer.close();
      return writer.response;
    }
    this.#writers.add(writer);
    writer.write(this.#lastFrame!);
    return writer.response;
  }

  /** Stops reading and ends every follower's stream. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const writer of [...this.#writers]) writer.close();
    this.#writers.clear();
    this.#release();
    this.onStop();
  }

  #send(state: SessionState): void {
    const text = JSON.stringify(state);
    if (text === this.#last) return;
    this.#last = text;
    const record = this.#log.push('state', state);
    // Only the last state is ever sent again (to a new follower).
    this.#log.clear();
    this.#lastFrame = record.bytes;
    for (const writer of this.#writers) writer.write(record.bytes);
  }

  /**
   * A turn whose holder stopped (neither running nor awaiting a decision) is not sent as cut off
   * while this instance recovers turns: it opens the session here, as a request would, which goes
   * on with the turn (`'here'`: the followers then reconnect to this live copy). `'elsewhere'`
   * when another instance holds it now; `'no'` when there is nothing to take up or opening failed.
   */
  async #takeUp(state: SessionState): Promise<'here' | 'elsewhere' | 'no'> {
    if (state.interruptedTurn === null || state.conversation.turn !== null) return 'no';
    if (!this.host.recovers || this.host.closing) return 'no';
    return this.host.open(this.userId, this.sessionId, 'read').then(
      (hosted) => (hosted ? 'here' : 'elsewhere'),
      () => 'no' as const,
    );
  }

  #schedule(running: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#read(), running ? DRAFT_READ_MS : IDLE_READ_MS);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** Reads the state again (one read at a time; a change meanwhile reads once more). */
  async #read(): Promise<void> {
    if (this.#stopped || this.#agent === null) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    try {
      if (this.host.held(this.userId, this.sessionId) !== null) return this.stop();
      const state = await storedState(this.#agent, this.sessionId);
      if (this.#stopped) return;
      const taken = await this.#takeUp(state);
      if (taken === 'here') return this.stop();
      // Another instance took it up meanwhile: its take rings, and the next read shows it running.
      if (taken === 'elsewhere') return this.#schedule(true);
      this.#send(state);
      this.#schedule(state.conversation.turn !== null);
    } catch {
      return this.stop();
    } finally {
      this.#reading = false;
    }
    if (this.#again) {
      this.#again = false;
      await this.#read();
    }
  }
}

/**
 * `state` with its interrupted turn shown running: another instance has just taken the session
 * up to go on with it (the next read shows it running there, or ended with its result).
 */
function goingOn(state: SessionState): SessionState {
  const turnId = state.interruptedTurn!.turnId;
  return { ...state, conversation: { ...state.conversation, turn: { id: turnId, status: 'running' } } };
}

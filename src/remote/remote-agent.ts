/**
 * `RemoteAgent`: the browser side of an agent that runs on a server (`youyou-agent/server`), with
 * the surface of a local `Agent` — `newSession`, `resumeSession`, `listSessions`,
 * `deleteSession` — and no provider key in the page.
 * @module
 */
import { AgentError } from '../errors.js';
import type { SessionConfig, SessionPage } from '../types.js';
import { call, fromServer, seg, type RemoteTransport } from './remote-http.js';
import { RemoteSession } from './remote-session.js';
import { ReadStateSchema, SessionPageSchema, type SessionState } from './wire.js';

/** Options of {@link RemoteAgent}. */
export interface RemoteAgentOptions {
  /** The handler's origin and base path, e.g. `'https://app.example/agent'`. */
  url: string | URL;
  /** Sent with every request (e.g. the user's `authorization`); a function is asked each time. */
  headers?: Record<string, string> | (() => Promise<Record<string, string>>);
  /** The `fetch` to use. Default: the global one. */
  fetch?: typeof fetch;
  /**
   * How long a command (create, resume, list, delete, approve, deny, cancel, discard, close) or a
   * stream's answer may take; past it the command rejects `INTERNAL_ERROR` (retryable). Default 30 s.
   */
  requestTimeoutMs?: number;
  /**
   * How long a turn waits for a server to be reached again after its stream broke; past it its
   * `result` settles `failed` with `INTERNAL_ERROR` (retryable). Default 60 s.
   */
  reconnectTimeoutMs?: number;
}

/** The largest page the server gives. */
const SERVER_PAGE = 100;

/**
 * `INVALID_INPUT` naming `what` unless `value` is absent or a whole number from 1 to `max`. By
 * hand, not by a schema: zod's object and number checks would weigh more in the page than the
 * rest of these options.
 */
function checkCount(value: unknown, what: string, max = 2 ** 53): void {
  if (value !== undefined && !(typeof value === 'number' && value % 1 === 0 && value >= 1 && value <= max))
    throw new AgentError('INVALID_INPUT', `invalid ${what}`);
}

/**
 * An agent on a server, used from the page.
 * @example
 * const agent = new RemoteAgent({ url: '/agent', headers: async () => ({ authorization: `Bearer ${await token()}` }) });
 * const session = await agent.newSession();
 * session.conversation.subscribe(render);
 * await (await session.sendMessage('Hello')).result;
 */
export class RemoteAgent {
  readonly #transport: RemoteTransport;

  constructor(options: RemoteAgentOptions) {
    checkCount(options.requestTimeoutMs, 'options.requestTimeoutMs');
    checkCount(options.reconnectTimeoutMs, 'options.reconnectTimeoutMs');
    const headers = options.headers;
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#transport = {
      base: String(options.url).replace(/\/+$/, ''),
      headers: typeof headers === 'function' ? headers : async () => headers ?? {},
      fetch: fetchFn,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      reconnectTimeoutMs: options.reconnectTimeoutMs ?? 60_000,
    };
  }

  /** Opens a new session on the server (`INVALID_INPUT` for a bad config, `SERVER_BUSY`…). */
  async newSession(config: SessionConfig = {}): Promise<RemoteSession> {
    return this.#session(await call(this.#transport, 'POST', '/sessions', { config }));
  }

  /** Opens a stored session (`SESSION_NOT_FOUND` when unknown or another user's). */
  async resumeSession(sessionId: string): Promise<RemoteSession> {
    return this.#session(await call(this.#transport, 'GET', `/sessions/${seg(String(sessionId))}`));
  }

  /**
   * This user's sessions, newest update first: up to `limit` (at most 1,000) of them, read in as
   * many of the server's pages (100 at most each) as it takes; `nextCursor` continues after them.
   * @example
   * const { sessions, nextCursor } = await remote.listSessions(null, 250);
   */
  async listSessions(cursor: string | null = null, limit = 20): Promise<SessionPage> {
    if (cursor !== null && typeof cursor !== 'string') throw new AgentError('INVALID_INPUT', 'invalid page.cursor');
    checkCount(limit, 'page.limit', 1_000);
    const sessions: SessionPage['sessions'] = [];
    let next = cursor;
    for (;;) {
      const query = new URLSearchParams({ limit: String(Math.min(SERVER_PAGE, limit - sessions.length)) });
      if (next !== null) query.set('cursor', next);
      const page = fromServer<SessionPage>(
        SessionPageSchema,
        await call(this.#transport, 'GET', `/sessions?${query}`),
        'a session list',
      );
      sessions.push(...page.sessions.slice(0, limit - sessions.length));
      next = page.nextCursor;
      // A page that brings nothing ends the listing too (a server that loops would never end).
      if (!page.sessions.length || next === null || sessions.length >= limit)
        return { sessions, nextCursor: next };
    }
  }

  /** Deletes a session. */
  async deleteSession(sessionId: string): Promise<void> {
    await call(this.#transport, 'DELETE', `/sessions/${seg(String(sessionId))}`);
  }

  #session(body: unknown): RemoteSession {
    const { eventId, ...state } = fromServer<SessionState & { eventId: string | null }>(
      ReadStateSchema,
      body,
      'a session state',
    );
    return new RemoteSession(this.#transport, state, eventId);
  }
}

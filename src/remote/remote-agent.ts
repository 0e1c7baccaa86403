/**
 * `RemoteAgent`: the browser side of an agent that runs on a server (`youyou-agent/server`), with
 * the surface of a local `Agent` — `newSession`, `resumeSession`, `listSessions`,
 * `deleteSession` — and no provider key in the page.
 * @module
 */
import * as z from 'zod/mini';
import { AgentError } from '../errors.js';
import type { SessionConfig, SessionPage } from '../types.js';
import { parseInput } from '../validate.js';
import { call, seg, type RemoteTransport } from './remote-http.js';
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

const Millis = /* @__PURE__ */ (() => z.optional(z.number().check(z.int(), z.positive())))();
/** The largest page the server gives. */
const SERVER_PAGE = 100;

const PageSchema = /* @__PURE__ */ (() =>
  z.object({
    cursor: z.nullable(z.string()),
    limit: z.number().check(z.int(), z.minimum(1), z.maximum(1_000)),
  }))();

const OptionsSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    url: z.union([z.string(), z.instanceof(URL)]),
    requestTimeoutMs: Millis,
    reconnectTimeoutMs: Millis,
  }))();

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
    const { url, requestTimeoutMs, reconnectTimeoutMs } = parseInput(OptionsSchema, options, 'options');
    const headers = options.headers;
    const fetchFn = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#transport = {
      base: String(url).replace(/\/+$/, ''),
      headers: typeof headers === 'function' ? headers : async () => headers ?? {},
      fetch: fetchFn,
      requestTimeoutMs: requestTimeoutMs ?? 30_000,
      reconnectTimeoutMs: reconnectTimeoutMs ?? 60_000,
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
    parseInput(PageSchema, { cursor, limit }, 'page');
    const sessions: SessionPage['sessions'] = [];
    let next = cursor;
    do {
      const query = new URLSearchParams({ limit: String(Math.min(SERVER_PAGE, limit - sessions.length)) });
      if (next !== null) query.set('cursor', next);
      const parsed = z.safeParse(SessionPageSchema, await call(this.#transport, 'GET', `/sessions?${query}`));
      if (!parsed.success) throw invalid('a session list of the wrong shape');
      const page = parsed.data as unknown as SessionPage;
      // A page that brings nothing cannot lead anywhere (a server that loops would never end).
      if (page.sessions.length === 0) return { sessions, nextCursor: null };
      sessions.push(...page.sessions.slice(0, limit - sessions.length));
      next = page.nextCursor;
    } while (next !== null && sessions.length < limit);
    return { sessions, nextCursor: next };
  }

  /** Deletes a session. */
  async deleteSession(sessionId: string): Promise<void> {
    await call(this.#transport, 'DELETE', `/sessions/${seg(String(sessionId))}`);
  }

  #session(body: unknown): RemoteSession {
    const parsed = z.safeParse(ReadStateSchema, body);
    if (!parsed.success) throw invalid('a session state of the wrong shape');
    const { eventId, ...state } = parsed.data as unknown as SessionState & { eventId: string | null };
    return new RemoteSession(this.#transport, state, eventId);
  }
}

function invalid(what: string): AgentError {
  return new AgentError('INVALID_INPUT', `the server sent an invalid message: ${what}`);
}

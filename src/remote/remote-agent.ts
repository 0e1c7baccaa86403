/**
 * `RemoteAgent`: the browser side of an agent that runs on a server (`youyou-agent/server`), with
 * the surface of a local `Agent` — `newSession`, `resumeSession`, `listSessions`,
 * `deleteSession` — and no provider key in the page.
 * @module
 */
import * as z from 'zod/mini';
import { AgentError } from '../errors.js';
import type { SessionConfig, SessionPage } from '../types.js';
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

/** The largest page the server gives. */
const SERVER_PAGE = 100;

const str = z.string();
const num = z.optional(z.number());
const OptionsSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    requestTimeoutMs: num,
    reconnectTimeoutMs: num,
  }))();
const PageSchema = /* @__PURE__ */ (() => z.looseObject({ cursor: z.nullable(str), limit: num }))();

/**
 * `value` checked by `schema`, with its `counts` whole numbers from 1 to `max`; else
 * `INVALID_INPUT` naming the first field that is wrong. (The range by hand: zod's number checks
 * would weigh more in the page than the rest of this entry's options.)
 */
function checked(
  schema: z.ZodMiniType,
  value: object,
  what: string,
  counts: readonly string[],
  max = 2 ** 53,
): void {
  const parsed = z.safeParse(schema, value);
  const wrong = parsed.success
    ? counts.find((key) => {
        const n = ((value as Record<string, unknown>)[key] ?? 1) as number;
        return !(n % 1 === 0 && n >= 1 && n <= max);
      })
    : parsed.error.issues[0]?.path.join('.');
  if (wrong !== undefined) throw new AgentError('INVALID_INPUT', `invalid ${what}.${wrong}`);
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
    checked(OptionsSchema, options, 'options', ['requestTimeoutMs', 'reconnectTimeoutMs']);
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
    checked(PageSchema, { cursor, limit }, 'page', ['limit'], 1_000);
    const sessions: SessionPage['sessions'] = [];
    let next = cursor;
    for (;;) {
      const query = new URLSearchParams({ limit: String(Math.min(SERVER_PAGE, limit - sessions.length)) });
      if (next !== null) query.set('cursor', next);
      const parsed = z.safeParse(SessionPageSchema, await call(this.#transport, 'GET', `/sessions?${query}`));
      if (!parsed.success) throw invalid('a session list of the wrong shape');
      const page = parsed.data as unknown as SessionPage;
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
    const parsed = z.safeParse(ReadStateSchema, body);
    if (!parsed.success) throw invalid('a session state of the wrong shape');
    const { eventId, ...state } = parsed.data as unknown as SessionState & { eventId: string | null };
    return new RemoteSession(this.#transport, state, eventId);
  }
}

function invalid(what: string): AgentError {
  return new AgentError('INVALID_INPUT', `the server sent an invalid message: ${what}`);
}

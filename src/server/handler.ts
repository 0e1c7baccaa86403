/**
 * `createAgentHandler`: the agent behind HTTP, as a web-standard `(Request) => Promise<Response>`
 * (Node through `toNodeListener`, or any framework that speaks `Request`/`Response`).
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { AgentError, Errors } from '../errors.js';
import type { SessionSummary } from '../types.js';
import { parseInput } from '../validate.js';
import { TURN_ID_HEADER } from '../remote/wire.js';
import { serverPort } from '../runtime/server-port.js';
import { ContinueBody, CreateBody, DecisionBody, ListQuery, TurnBody } from './bodies.js';
import { cancel, continueTurn, decide, discard, onceStarted, startTurn, turnOptions } from './commands.js';
import { empty, errorResponse, json, NoRoute, readJson, ServerErrors } from './http.js';
import {
  resolveHandlerOptions,
  type AgentHandlerOptions,
  type ErrorContext,
  type ResolvedHandlerOptions,
} from './options.js';
import { proxyModelRequest } from './model-proxy.js';
import { matchRoute, type Route } from './routes.js';
import { sessionConfigFor } from './session-config.js';
import { startRecoverySweep } from './recovery-sweep.js';
import type { HostedSession } from './hosted-session.js';
import { SessionHost } from './session-host.js';
import { followStored, joinStored } from './stored-follow.js';
import { storedState } from './stored-state.js';
import { TurnAdmission } from './turn-admission.js';
import { answerChat } from './ui-message/chat-routes.js';

/** The id of a state read from storage: no copy's position, so the next stream starts with a state too. */
const STORED_POSITION = 'stored.0';

/**
 * The agent's HTTP handler. Every request must pass `authorize`; a user sees and changes only
 * the sessions they created. Turns answer with Server-Sent Events (an `id:` on every frame), and
 * `GET …/events` follows a session, replaying what a reconnecting client missed.
 * @example
 * import { createServer } from 'node:http';
 * const handler = createAgentHandler({
 *   agent: ({ userId }) => buildAgentFor(userId),
 *   authorize: async (request) => verifySession(request.headers.get('authorization')),
 * });
 * createServer(toNodeListener(handler)).listen(3000);
 */
export function createAgentHandler(options: AgentHandlerOptions): AgentHandler {
  const resolved = resolveHandlerOptions(options);
  const host = new SessionHost(resolved.agent, resolved);
  const find = resolved.recovery?.find;
  const sweep = find
    ? startRecoverySweep(host, { find, sweepIntervalMs: resolved.recovery!.sweepIntervalMs }, (error, sessionId, userId) =>
        resolved.reportError(error, { route: 'recovery', userId, sessionId }),
      )
    : null;
  const turns = new TurnAdmission(resolved.maxRunningTurns);
  const handler = async (request: Request): Promise<Response> => {
    const context: ErrorContext = { route: 'unknown', userId: null, sessionId: null };
    try {
      const user = await authorize(resolved, request);
      context.userId = user;
      const path = pathBelow(resolved.basePath, new URL(request.url).pathname);
      const route = path === null ? null : matchRoute(request.method, path);
      if (!route) throw new NoRoute(request.method, new URL(request.url).pathname);
      context.route = route.name;
      if ('id' in route) context.sessionId = route.id;
      return await answer(route, request, user, host, resolved, turns);
    } catch (error) {
      return errorResponse(error, (detail) => resolved.reportError(detail, context));
    }
  };
  return Object.assign(handler, {
    close: (closeOptions: { timeoutMs?: number } = {}) => {
      const { timeoutMs } = parseInput(CloseOptions, closeOptions, 'options');
      sweep?.stop();
      return host.shutdown(timeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS);
    },
  });
}

/** How long `handler.close()` lets running turns end by default. */
const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

const CloseOptions = /* @__PURE__ */ (() =>
  z.strictObject({ timeoutMs: z.optional(integer().check(z.minimum(0))) }))();

/**
 * The agent's HTTP handler: a web-standard `(request) => Promise<Response>` (mount it with
 * `toNodeListener`, or in any framework that speaks `Request`/`Response`), with `close` to stop
 * the instance.
 * @example
 * const handler = createAgentHandler(options);
 * process.once('SIGTERM', () => void handler.close({ timeoutMs: 10_000 }).then(() => process.exit(0)));
 */
export interface AgentHandler {
  (request: Request): Promise<Response>;
  /**
   * Stops the instance. From the call on, new sessions and turns get 503 `SERVER_BUSY`. Running
   * turns get `timeoutMs` (default 10 000) to end; then they are interrupted (no `turn_ended`:
   * another instance recovers them) and every session is released, its lock given back at once.
   * Resolves once all that is done. Idempotent.
   */
  close(options?: { timeoutMs?: number }): Promise<void>;
}

/** The caller's user id; `UNAUTHORIZED` unless `authorize` names one. */
async function authorize(options: ResolvedHandlerOptions, request: Request): Promise<string> {
  let user: unknown;
  try {
    user = await options.authorize(request);
  } catch {
    user = null;
  }
  const userId = (user as { userId?: unknown } | null)?.userId;
  if (typeof userId !== 'string' || userId === '') throw ServerErrors.unauthorized();
  return userId;
}

/** The path below `basePath`, or `null` when the request is not for the handler. */
function pathBelow(basePath: string, pathname: string): string | null {
  if (basePath === '') return pathname;
  if (pathname !== basePath && !pathname.startsWith(`${basePath}/`)) return null;
  return pathname.slice(basePath.length);
}

async function answer(
  route: Route,
  request: Request,
  userId: string,
  host: SessionHost,
  options: ResolvedHandlerOptions,
  turns: TurnAdmission,
): Promise<Response> {
  const lastEventId = request.headers.get('last-event-id');
  switch (route.name) {
    case 'create': {
      if (host.closing) throw ServerErrors.shuttingDown();
      const body = parseInput(CreateBody, await readJson(request), 'body');
      const config = await sessionConfigFor(body.config, userId, options.sessionConfig);
      const hosted = await host.create(userId, config);
      return json(201, { ...hosted.state(), eventId: hosted.log.position });
    }
    case 'list':
      return json(200, await list(request, userId, host));
    case 'get': {
      const hosted = await host.open(userId, route.id, 'read');
      if (hosted) return json(200, { ...hosted.state(), eventId: hosted.log.position });
      const state = await host.withAgent(userId, (agent) => storedState(agent, route.id));
      return json(200, { ...state, eventId: STORED_POSITION });
    }
    case 'delete': {
      const hosted = (await host.open(userId, route.id, 'command'))!;
      await hosted.release();
      const storage = hosted.server.storage;
      if (storage) await storageCall(() => storage.deleteSession(route.id));
      host.owners.delete(route.id);
      return empty(204);
    }
    case 'turns': {
      if (host.closing) throw ServerErrors.shuttingDown();
      const body = parseInput(TurnBody, await readJson(request), 'body');
      const opts = turnOptions(body.options, options.outputs);
      let hosted!: HostedSession;
      const turn = await turns.admit(async () => {
        hosted = (await host.open(userId, route.id, 'turn'))!;
        return hosted.hold(() => startTurn(hosted, body.input, opts));
      });
      return withTurnId(
        await onceStarted(hosted, hosted.stream(lastEventId, turn.id, request.signal)),
        turn.id,
      );
    }
    case 'continue': {
      if (host.closing) throw ServerErrors.shuttingDown();
      const body = parseInput(ContinueBody, await readJson(request), 'body');
      let hosted!: HostedSession;
      const turn = await turns.admit(async () => {
        hosted = (await host.open(userId, route.id, 'turn'))!;
        return hosted.hold(() => continueTurn(hosted, body.options));
      });
      return withTurnId(
        await onceStarted(hosted, hosted.stream(lastEventId, turn.id, request.signal)),
        turn.id,
      );
    }
    case 'discard': {
      const hosted = (await host.open(userId, route.id, 'command'))!;
      await hosted.hold(() => discard(hosted));
      return empty(204);
    }
    case 'close': {
      await host.close(userId, route.id);
      return empty(204);
    }
    case 'events': {
      // Another follower of a session held elsewhere: it shares that follower's reader.
      const joined = joinStored(host, userId, route.id, request.signal, options);
      if (joined) return joined;
      const hosted = await host.open(userId, route.id, 'read');
      if (hosted) return hosted.stream(lastEventId, null, request.signal);
      return followStored(host, userId, route.id, request.signal, options);
    }
    case 'cancel': {
      // A turn that is not the session's running or interrupted one: nothing to do, nothing taken over.
      const hosted = await host.openForTurn(userId, route.id, route.turnId);
      if (hosted) await hosted.hold(() => cancel(hosted, route.turnId));
      return empty(202);
    }
    case 'approval': {
      const body = parseInput(DecisionBody, await readJson(request), 'body');
      const hosted = await host.openForTurn(userId, route.id, route.turnId);
      if (!hosted) throw Errors.approvalNotPending(route.callId);
      await hosted.hold(() => decide(hosted, route.turnId, route.callId, body));
      return empty(204);
    }
    case 'chat':
    case 'chatStream':
    case 'chatMessages':
    case 'chatCancel':
      if (!options.uiMessageStream) throw new NoRoute(request.method, new URL(request.url).pathname);
      return answerChat(route, request, userId, host, options);
    case 'modelProxy':
      // Only with `modelProxy` set; without it the path is an unknown route like any other.
      if (!options.modelProxy) throw new NoRoute(request.method, new URL(request.url).pathname);
      return proxyModelRequest(request, options.modelProxy);
  }
}

/**
 * `GET /sessions`: the caller's sessions only, `limit` of them while there are more. Other users'
 * sessions in a shared storage are skipped (pages of the storage are read until the page is
 * full), and the next cursor is the storage's cursor after the caller's last listed session, so
 * it never names anyone else's.
 */
async function list(request: Request, userId: string, host: SessionHost) {
  const url = new URL(request.url);
  const query = parseInput(ListQuery, Object.fromEntries(url.searchParams), 'query');
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (limit < 1 || limit > 100) throw Errors.invalidInput('invalid query.limit: expected 1 to 100');
  return host.withAgent(userId, async (agent) => {
    const storage = serverPort(agent).storage;
    if (!storage) return { sessions: [], nextCursor: null };
    const sessions: SessionSummary[] = [];
    let cursor = query.cursor ?? null;
    for (;;) {
      const page = await storageCall(() => storage.listSessions(cursor, limit));
      let lastMine = -1;
      for (const [index, summary] of page.sessions.entries()) {
        if (sessions.length === limit) break;
        if (!(await host.owners.ownsListed(userId, summary, storage))) continue;
        sessions.push(summary);
        lastMine = index;
      }
      if (sessions.length < limit) {
        if (page.nextCursor === null) return { sessions, nextCursor: null };
        cursor = page.nextCursor;
        continue;
      }
      // Full. The page's cursor is after its last session: the caller's when that is the last
      // one listed; else the storage gives the cursor after the caller's last, read up to it.
      if (lastMine === page.sessions.length - 1) return { sessions, nextCursor: page.nextCursor };
      return {
        sessions,
        nextCursor: (await storageCall(() => storage.listSessions(cursor, lastMine + 1))).nextCursor,
      };
    }
  });
}

/** A call on the storage port: what it throws is a `STORAGE_ERROR` (as the runtime's own calls are). */
async function storageCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (AgentError.isInstance(error)) throw error;
    // The driver's words, for `onError`: a client reads the fixed sentence.
    throw Errors.storage(
      `the session storage failed: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
}

function withTurnId(response: Response, turnId: string): Response {
  response.headers.set(TURN_ID_HEADER, turnId);
  return response;
}

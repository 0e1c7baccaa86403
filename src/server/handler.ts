/**
 * `createAgentHandler`: the agent behind HTTP, as a web-standard `(Request) => Promise<Response>`
 * (Node through `toNodeListener`, or any framework that speaks `Request`/`Response`).
 * @module
 */
import { Errors } from '../errors.js';
import type { SessionConfig } from '../types.js';
import { parseInput } from '../validate.js';
import { TURN_ID_HEADER } from '../remote/wire.js';
import { ContinueBody, CreateBody, DecisionBody, ListQuery, TurnBody } from './bodies.js';
import { cancel, continueTurn, decide, onceStarted, startTurn, turnOptions } from './commands.js';
import { empty, errorResponse, json, NoRoute, readJson, ServerErrors } from './http.js';
import { resolveHandlerOptions, type AgentHandlerOptions, type ResolvedHandlerOptions } from './options.js';
import { proxyModelRequest } from './model-proxy.js';
import { matchRoute, type Route } from './routes.js';
import type { HostedSession } from './hosted-session.js';
import { SessionHost } from './session-host.js';
import { followStored, joinStored } from './stored-follow.js';
import { storedState } from './stored-state.js';
import { TurnAdmission } from './turn-admission.js';

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
export function createAgentHandler(options: AgentHandlerOptions): (request: Request) => Promise<Response> {
  const resolved = resolveHandlerOptions(options);
  const host = new SessionHost(resolved.agent, resolved);
  const turns = new TurnAdmission(resolved.maxRunningTurns);
  return async (request) => {
    try {
      const user = await authorize(resolved, request);
      const path = pathBelow(resolved.basePath, new URL(request.url).pathname);
      const route = path === null ? null : matchRoute(request.method, path);
      if (!route) throw new NoRoute(request.method, new URL(request.url).pathname);
      return await answer(route, request, user, host, resolved, turns);
    } catch (error) {
      return errorResponse(error);
    }
  };
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
      const body = parseInput(CreateBody, await readJson(request), 'body');
      const hosted = await host.create(userId, body.config as SessionConfig | undefined);
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
      const hosted = await host.open(userId, route.id, 'command');
      const storage = hosted!.agent._sessionStorage;
      await hosted!.release();
      await storage?.deleteSession(route.id);
      host.owners.delete(route.id);
      return empty(204);
    }
    case 'turns': {
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
      await hosted.hold(() => hosted.session.discardInterruptedTurn());
      return empty(204);
    }
    case 'close': {
      const hosted = (await host.open(userId, route.id, 'command'))!;
      await hosted.close();
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
      const hosted = (await host.open(userId, route.id, 'command'))!;
      await hosted.hold(() => cancel(hosted, route.turnId));
      return empty(202);
    }
    case 'approval': {
      const body = parseInput(DecisionBody, await readJson(request), 'body');
      const hosted = (await host.open(userId, route.id, 'command'))!;
      await hosted.hold(() => decide(hosted, route.turnId, route.callId, body));
      return empty(204);
    }
    case 'modelProxy':
      // Only with `modelProxy` set; without it the path is an unknown route like any other.
      if (!options.modelProxy) throw new NoRoute(request.method, new URL(request.url).pathname);
      return proxyModelRequest(request, options.modelProxy);
  }
}

/** `GET /sessions`: the caller's sessions only. */
async function list(request: Request, userId: string, host: SessionHost) {
  const url = new URL(request.url);
  const query = parseInput(ListQuery, Object.fromEntries(url.searchParams), 'query');
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (limit < 1 || limit > 100) throw Errors.invalidInput('invalid query.limit: expected 1 to 100');
  return host.withAgent(userId, async (agent) => {
    const storage = agent._sessionStorage;
    if (!storage) return { sessions: [], nextCursor: null };
    const page = await storage.listSessions(query.cursor ?? null, limit);
    const sessions = [];
    for (const summary of page.sessions) {
      if (await host.owners.owns(userId, summary.id, storage)) sessions.push(summary);
    }
    return { sessions, nextCursor: page.nextCursor };
  });
}

function withTurnId(response: Response, turnId: string): Response {
  response.headers.set(TURN_ID_HEADER, turnId);
  return response;
}

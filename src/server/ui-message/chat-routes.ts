/**
 * The `/chat` routes, for the AI SDK's `useChat`: `POST /chat` (a message or approval answers,
 * answered with the turn's UI message stream), `GET /chat/:id/stream` (reconnect),
 * `GET /chat/:id/messages` (the session as `UIMessage`s) and `POST /chat/:id/cancel`. A chat id is
 * a session id; one nobody has is a new chat of the caller's, another user's is 404.
 * @module
 */
import { AgentError, Errors } from '../../errors.js';
import type { RunningTurn } from '../../session.js';
import { cancel, decide, onceStarted, startTurn, turnOptions } from '../commands.js';
import type { HostedSession } from '../hosted-session.js';
import { empty, json, readJson } from '../http.js';
import type { ResolvedHandlerOptions } from '../options.js';
import { serverPort } from '../../runtime/server-port.js';
import { ownerOf } from '../ownership.js';
import type { SessionHost } from '../session-host.js';
import { chatRequest, type ChatRequest } from './chat-body.js';
import { chatStream } from './chat-stream.js';
import { recordReasoning } from './reasoning-record.js';
import { chatMessageEvent, storedChatMessages } from './stored-messages.js';

/** A `/chat` route. */
export type ChatRoute =
  | { name: 'chat' }
  | { name: 'chatStream'; id: string }
  | { name: 'chatMessages'; id: string }
  | { name: 'chatCancel'; id: string };

/** The `/chat` route of `method` and the path's segments (`['chat', …]`), or `null`. */
export function matchChatRoute(method: string, segments: readonly string[]): ChatRoute | null {
  const [, id, action] = segments;
  if (segments.length === 1) return method === 'POST' ? { name: 'chat' } : null;
  if (segments.length !== 3 || id === undefined) return null;
  if (action === 'stream' && method === 'GET') return { name: 'chatStream', id };
  if (action === 'messages' && method === 'GET') return { name: 'chatMessages', id };
  if (action === 'cancel' && method === 'POST') return { name: 'chatCancel', id };
  return null;
}

/** Whose a chat is: the caller's, nobody's yet, or (404) someone else's. */
async function chatOwner(host: SessionHost, userId: string, id: string): Promise<'mine' | 'new'> {
  const known = host.owners.ownerOf(id);
  if (known !== undefined) {
    if (known === userId) return 'mine';
    throw Errors.sessionNotFound(id);
  }
  const events = await host.withAgent(
    userId,
    async (agent) => (await serverPort(agent).storage?.loadSession(id)) ?? null,
  );
  if (events === null) return 'new';
  const owner = ownerOf(events);
  if (owner === null || owner !== userId) throw Errors.sessionNotFound(id);
  host.owners.set(id, owner);
  return 'mine';
}

/** Answers a `/chat` request of the authorized `userId`. */
export async function answerChat(
  route: ChatRoute,
  request: Request,
  userId: string,
  host: SessionHost,
  options: ResolvedHandlerOptions,
): Promise<Response> {
  switch (route.name) {
    case 'chat':
      return send(chatRequest(await readJson(request)), request, userId, host, options);
    case 'chatStream': {
      if ((await chatOwner(host, userId, route.id)) === 'new') return empty(204);
      const hosted = await host.open(userId, route.id, 'read');
      const turn = hosted?.running;
      if (!hosted || !turn) return empty(204);
      return chatStream(hosted, turn.id, 0, request.signal, streamLimits(options));
    }
    case 'chatMessages': {
      if ((await chatOwner(host, userId, route.id)) === 'new') return json(200, []);
      const events = await host.withAgent(
        userId,
        async (agent) => (await serverPort(agent).storage?.loadSession(route.id)) ?? [],
      );
      return json(200, storedChatMessages(events));
    }
    case 'chatCancel': {
      if ((await chatOwner(host, userId, route.id)) === 'new') return empty(202);
      const hosted = host.held(userId, route.id);
      const turn = hosted?.running;
      if (hosted && turn) await hosted.hold(() => cancel(hosted, turn.id));
      return empty(202);
    }
  }
}

async function send(
  chat: ChatRequest,
  request: Request,
  userId: string,
  host: SessionHost,
  options: ResolvedHandlerOptions,
): Promise<Response> {
  const opts = turnOptions(chat.options as Parameters<typeof turnOptions>[0], options.outputs);
  const hosted =
    (await chatOwner(host, userId, chat.id)) === 'new'
      ? await host.create(userId, undefined, chat.id)
      : (await host.open(userId, chat.id, 'turn'))!;
  if (chat.kind === 'message') {
    const pending = hosted.running?.pendingApprovals ?? [];
    if (pending.length > 0) throw Errors.approvalPending(pending.map((approval) => approval.callId));
    const turn = await hosted.hold(() => startTurn(hosted, chat.input, opts));
    await recordMessageId(hosted, turn, chat.messageId);
    recordReasoning(hosted, turn);
    return onceStarted(hosted, chatStream(hosted, turn.id, 0, request.signal, streamLimits(options)));
  }
  const turn = hosted.running;
  if (!turn || turn.id !== chat.messageId) throw Errors.approvalNotPending(chat.decisions[0]!.callId);
  // The page has the chunks of the turn's events so far: the continuation starts after them.
  let after = 0;
  hosted.followTurn(turn.id, (event) => void (event && (after = event.sequence)))();
  await hosted.hold(async () => {
    for (const decision of chat.decisions) {
      if (!turn.pendingApprovals.some((pending) => pending.callId === decision.callId)) continue;
      await decide(hosted, turn.id, decision.callId, decision);
    }
  });
  return chatStream(hosted, turn.id, after, request.signal, streamLimits(options));
}

/** Stores the id the page gave its message, so `GET …/messages` answers with it. */
async function recordMessageId(hosted: HostedSession, turn: RunningTurn, messageId: string): Promise<void> {
  const storage = hosted.server.storage;
  try {
    await storage?.saveEvent(hosted.id, chatMessageEvent(turn.id, messageId));
  } catch (error) {
    await turn.cancel();
    if (AgentError.isInstance(error)) throw error;
    throw Errors.storage('the session storage failed to store a chat message id', error);
  }
}

/** The bounds of a `/chat` stream: the handler's, as for every stream. */
function streamLimits(options: ResolvedHandlerOptions) {
  return { maxBufferedBytes: options.maxStreamBufferBytes, stallTimeoutMs: options.idleTimeoutMs };
}

/**
 * Type tests of the server round's public names, as the design contract spells them:
 * `createAgentHandler` and `toNodeListener` from `youyou-agent/server`, `RemoteAgent`,
 * `RemoteSession` and `RemoteTurn` from `youyou-agent/remote` — and that a remote session and
 * turn can stand where code expects the local ones' common surface.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import type {
  Agent,
  AgentEvent,
  Conversation,
  RunningTurn,
  Session,
  SessionPage,
  TurnResult,
} from '../../src/index.js';
import { RemoteAgent, type RemoteSession, type RemoteTurn } from '../../src/remote.js';
import { createAgentHandler, toNodeListener, type AgentHandler } from '../../src/server.js';

declare const build: (userId: string) => Promise<Agent>;

describe('youyou-agent/server', () => {
  it('createAgentHandler and toNodeListener', () => {
    const handler = createAgentHandler({
      agent: ({ userId }) => build(userId),
      authorize: async (request: Request) => (request.headers.has('authorization') ? { userId: 'u' } : null),
      outputs: { trip: z.object({ city: z.string() }) },
      basePath: '/agent',
      idleTimeoutMs: 60_000,
      maxOpenSessions: 1_000,
      maxOpenSessionsPerUser: 20,
      modelProxy: {
        upstream: 'https://api.openai.com/v1',
        apiKey: 'k',
        models: ['m'],
        maxOutputTokens: 1000,
      },
      uiMessageStream: true,
    });
    expectTypeOf(handler).toEqualTypeOf<AgentHandler>();
    expectTypeOf(handler).toBeCallableWith(new Request('https://app.example/agent/sessions'));
    expectTypeOf(handler.close).toEqualTypeOf<(options?: { timeoutMs?: number }) => Promise<void>>();
    expectTypeOf(toNodeListener(handler)).toEqualTypeOf<
      (req: IncomingMessage, res: ServerResponse) => void
    >();
  });
});

describe('youyou-agent/remote', () => {
  it('RemoteAgent, RemoteSession and RemoteTurn', async () => {
    const remote = new RemoteAgent({
      url: new URL('https://app.example/agent'),
      headers: async () => ({}),
      fetch,
    });
    new RemoteAgent({ url: 'https://app.example/agent', headers: { authorization: 'Bearer t' } });
    expectTypeOf(remote.newSession()).toEqualTypeOf<Promise<RemoteSession>>();
    expectTypeOf(remote.resumeSession('s')).toEqualTypeOf<Promise<RemoteSession>>();
    expectTypeOf(remote.listSessions(null, 20)).toEqualTypeOf<Promise<SessionPage>>();
    expectTypeOf(remote.deleteSession('s')).toEqualTypeOf<Promise<void>>();

    const session = await remote.newSession({ modelId: 'm' });
    expectTypeOf(session.conversation).toEqualTypeOf<Observable<Conversation>>();
    const turn = await session.sendMessage('hi', { output: { name: 'trip' }, budget: { maxCost: 0.1 } });
    expectTypeOf(turn.result).toEqualTypeOf<Promise<TurnResult<unknown>>>();
    expectTypeOf(turn.events).toEqualTypeOf<Observable<AgentEvent>>();
    expectTypeOf(await session.continueTurn({ rerunMaybeExecuted: true })).toEqualTypeOf<RemoteTurn>();

    // Remote = local: code written for the local surface takes the remote one.
    const local: Pick<
      Session,
      'id' | 'messages' | 'interruptedTurn' | 'conversation' | 'events' | 'close' | 'discardInterruptedTurn'
    > = session;
    const running: Pick<
      RunningTurn,
      'id' | 'events' | 'result' | 'cancel' | 'approve' | 'deny' | 'pendingApprovals'
    > = turn;
    void local;
    void running;
  });
});

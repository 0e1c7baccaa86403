/**
 * The point of the proxy: an agent that runs where its users can read everything (a page) talks
 * to a real model through the server, holding only a user token. `AgentBuilder` with the real
 * `OpenAIProvider` (the `openai` package over real HTTP) points its `baseURL` at a node:http server
 * that mounts `proxyModelRequest` behind a token check; the proxy's upstream is the local Chat
 * Completions server. A turn with a tool round completes, and the key never leaves the server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod/mini';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountWebHandler } from '../../demo/server/web-middleware.js';
import { AgentBuilder, defineTool, type AgentEvent } from '../../src/index.js';
import { OpenAIProvider } from '../../src/openai.js';
import { proxyModelRequest } from '../../src/server.js';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';
import { chatModel } from '../support/models.js';

const SERVER_KEY = 'sk-server-secret-0123456789abcdef';
const USER_TOKEN = 'user-token-not-a-key';

let upstream: ChatCompletionsServer;
let app: Server;
let agentBase: string;
/** The `Authorization` of every request the app got on the proxy route. */
const appAuthorizations: (string | undefined)[] = [];

beforeAll(async () => {
  upstream = await ChatCompletionsServer.start();
  const proxy = {
    upstream: upstream.baseURL,
    apiKey: SERVER_KEY,
    models: ['gpt-4o-mini'],
    maxOutputTokens: 256,
  };
  const route = mountWebHandler('/agent/v1/chat/completions', async (request) => {
    appAuthorizations.push(request.headers.get('authorization') ?? undefined);
    // The app's own authorization, which the proxy relies on having run.
    if (request.headers.get('authorization') !== `Bearer ${USER_TOKEN}`) {
      return Response.json({ error: { code: 'UNAUTHORIZED', message: 'sign in first' } }, { status: 401 });
    }
    return proxyModelRequest(request, proxy);
  });
  app = createServer((req, res) => route(req, res, () => res.writeHead(404).end()));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  agentBase = `http://127.0.0.1:${(app.address() as AddressInfo).port}/agent/v1`;
});
afterAll(async () => {
  app.closeAllConnections();
  await new Promise<void>((resolve) => app.close(() => resolve()));
  await upstream.close();
});

/** The model: asks for the weather in Paris, then answers from the tool's result. */
function weatherModel(): void {
  upstream.respondWith((_req, res, body) => {
    const chunk = (delta: object, finish: string | null = null) =>
      sseEvent({
        id: 'c1',
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
    const messages = body.messages as { role: string; content?: unknown }[];
    const toolResult = messages.find((m) => m.role === 'tool');
    startSse(res);
    if (!toolResult) {
      const call = {
        index: 0,
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      };
      res.write(chunk({ role: 'assistant', tool_calls: [call] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }));
      res.write(chunk({}, 'tool_calls'));
    } else {
      res.write(chunk({ role: 'assistant', content: `The tool says: ${String(toolResult.content)}` }));
      res.write(chunk({}, 'stop'));
    }
    res.end('data: [DONE]\n\n');
  });
}

async function inPageAgent(apiKey: string, model = 'gpt-4o-mini') {
  const weather = defineTool({
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ arguments: { city } }) => `sunny in ${city}`,
  });
  return new AgentBuilder({ defaultModel: model, retry: { maxRetries: 0 } })
    .registerModelProvider(
      new OpenAIProvider({
        baseURL: agentBase,
        apiKey,
        models: [chatModel('gpt-4o-mini'), chatModel('gpt-4.1')],
      }),
    )
    .registerTool(weather)
    .build();
}

async function runTurn(apiKey: string, model?: string) {
  const agent = await inPageAgent(apiKey, model);
  const session = await agent.newSession();
  const turn = await session.sendMessage('What is the weather in Paris?');
  const events: AgentEvent[] = [];
  turn.events.subscribe((e) => events.push(e));
  const result = await turn.result;
  await agent.shutdown();
  return { result, events };
}

describe('an in-page agent through the model proxy', () => {
  it('completes a turn with a tool round; the upstream sees only the server key', async () => {
    weatherModel();
    const before = upstream.requests.length;
    const { result, events } = await runTurn(USER_TOKEN);
    expect(result.status).toBe('completed');
    const text = events.map((e) => (e.payload.type === 'text_delta' ? e.payload.text : '')).join('');
    expect(text).toBe('The tool says: sunny in Paris');
    expect(events.find((e) => e.payload.type === 'tool_call_end')?.payload).toMatchObject({
      toolName: 'get_weather',
      success: true,
      output: { content: 'sunny in Paris' },
    });

    const received = upstream.requests.slice(before);
    expect(received).toHaveLength(2);
    for (const request of received) {
      expect(request.url).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBe(`Bearer ${SERVER_KEY}`);
      expect(JSON.stringify(request)).not.toContain(USER_TOKEN);
      // The provider asked for no limit; the proxy set its cap.
      expect(request.body.max_completion_tokens).toBe(256);
      expect(request.body.stream).toBe(true);
    }
    expect(appAuthorizations.at(-1)).toBe(`Bearer ${USER_TOKEN}`);
    expect(JSON.stringify(events)).not.toContain(SERVER_KEY);
  });

  it("fails the turn with the proxy's refusal for a model the server does not offer", async () => {
    weatherModel();
    const before = upstream.requests.length;
    const { result } = await runTurn(USER_TOKEN, 'gpt-4.1');
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
    expect(result.error?.message).toContain("model 'gpt-4.1' is not offered by this server");
    expect(upstream.requests.length).toBe(before);
  });

  it('fails the turn without reaching the upstream when the app refuses the token', async () => {
    weatherModel();
    const before = upstream.requests.length;
    const { result } = await runTurn('someone-else');
    expect(result.status).toBe('failed');
    expect(result.error?.message).toContain('401');
    expect(upstream.requests.length).toBe(before);
  });
});

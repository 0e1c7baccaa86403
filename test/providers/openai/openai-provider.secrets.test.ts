/**
 * A server that echoes the credentials it was sent (in an error body, a response header, an error
 * inside the stream, a malformed chunk) does not get them into the errors the provider throws:
 * the API key and the configured header values become `[redacted]` in the message and in
 * everything the `cause` holds. Over real HTTP, through the provider's `fetch` client, an SDK
 * client, and a whole agent's `error` event.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { AgentBuilder, type AgentEvent } from '../../../src/index.js';
import { OpenAIProvider } from '../../../src/openai.js';
import type { ChatRequest } from '../../../src/types.js';
import { ChatCompletionsServer, collect, sseEvent, streamText, type Responder } from './local-server.js';
import { chatModel, chatRequest } from '../../support/models.js';

const API_KEY = 'sk-test-4f9a1c2b7d8e3f6a';
const TEAM_TOKEN = 'team-token-51b2c3d4';
const headers = { 'X-Team-Token': TEAM_TOKEN, 'X-Title': 'Secrets test app' };

const model = chatModel('m');
const request: ChatRequest = chatRequest('hi');

let server: ChatCompletionsServer;
let viaFetch: OpenAIProvider;
let viaClient: OpenAIProvider;

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  viaFetch = new OpenAIProvider({ baseURL: server.baseURL, apiKey: API_KEY, headers, models: [model] });
  const client = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL, logLevel: 'off' });
  viaClient = new OpenAIProvider({ client, headers, models: [model] });
});
afterAll(() => server.close());

/** What the server was sent, as it would quote it back. */
function echo(req: Parameters<Responder>[0]): string {
  return `authorization: ${req.headers.authorization}; x-team-token: ${req.headers['x-team-token']}`;
}

/** Every string reachable from `value`: messages, stacks, causes, fields, header values. */
function allText(value: unknown, seen = new Set<unknown>()): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object' || seen.has(value)) return '';
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Headers) for (const [name, text] of value) parts.push(name, text);
  if (value instanceof Error) parts.push(value.message, value.stack ?? '', allText(value.cause, seen));
  for (const key of Object.getOwnPropertyNames(value)) {
    try {
      parts.push(key, allText((value as Record<string, unknown>)[key], seen));
    } catch {
      // a getter that throws holds nothing to leak
    }
  }
  return parts.join('\n');
}

function expectRedacted(error: unknown): AgentError {
  expect(AgentError.isInstance(error)).toBe(true);
  const text = allText(error);
  expect(text).not.toContain(API_KEY);
  expect(text).not.toContain(TEAM_TOKEN);
  expect((error as AgentError).message).toContain('[redacted]');
  return error as AgentError;
}

const replies: [string, Responder][] = [
  [
    'a 401 JSON body and a response header that quote the request headers',
    (req, res) => {
      res.writeHead(401, { 'content-type': 'application/json', 'x-echo': echo(req) });
      res.end(JSON.stringify({ error: { message: `Invalid credentials (${echo(req)})`, type: 'auth' } }));
    },
  ],
  [
    'a plain-text 403 body',
    (req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end(`Forbidden. ${echo(req)}`);
    },
  ],
  [
    'an error object inside the stream',
    (req, res, body) =>
      streamText(
        sseEvent({ choices: [{ index: 0, delta: { content: 'Hi' } }] }) +
          sseEvent({ error: { message: `upstream rejected ${echo(req)}`, code: 400 } }),
      )(req, res, body),
  ],
  [
    'a malformed chunk that contains the key',
    (req, res, body) => streamText(`data: {"echo": ${echo(req)}}\n\n`)(req, res, body),
  ],
];

describe.each([
  ['the fetch client', () => viaFetch],
  ['an SDK client', () => viaClient],
])('through %s', (_, provider) => {
  it.each(replies)('%s: redacted in the message and the cause', async (_name, reply) => {
    server.respondWith(reply);
    const { error } = await collect(provider().chat(request, new AbortController().signal));
    const agentError = expectRedacted(error);
    expect(agentError.code).toBe('PROVIDER_ERROR');
    // The request did carry the secrets: the server had something to echo.
    const sent = server.requests.at(-1)!.headers;
    expect(sent.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent['x-team-token']).toBe(TEAM_TOKEN);
  });

  it('keeps what the error is about: code, retryability, status and the rest of the text', async () => {
    server.respondWith(replies[0]![1]);
    const { error } = await collect(provider().chat(request, new AbortController().signal));
    const agentError = expectRedacted(error);
    expect(agentError.retryable).toBe(false);
    expect(agentError.message).toBe(
      "provider 'openai': HTTP 401: Invalid credentials (authorization: Bearer [redacted]; x-team-token: [redacted])",
    );
    expect(agentError.cause).toBeInstanceOf(Error);
    expect(agentError.cause).toMatchObject({ name: 'AuthenticationError', status: 401 });
  });
});

it('a whole agent: the error event and the turn result carry no secret', async () => {
  server.respondWith(replies[0]![1]);
  const agent = await new AgentBuilder({ defaultModel: 'm', retry: { maxRetries: 0 } })
    .registerModelProvider(viaFetch)
    .build();
  const session = await agent.newSession();
  const turn = await session.sendMessage('hello');
  const events: AgentEvent[] = [];
  turn.events.subscribe((event) => events.push(event));
  const result = await turn.result;
  await agent.shutdown();
  const failure = events.find((event) => event.payload.type === 'error');
  expect(failure?.payload).toMatchObject({ error: { code: 'PROVIDER_ERROR' } });
  const everything = JSON.stringify(events) + allText(result);
  expect(everything).toContain('[redacted]');
  expect(everything).not.toContain(API_KEY);
  expect(everything).not.toContain(TEAM_TOKEN);
});

it('values shorter than 8 characters are not treated as secrets (placeholders such as "ollama")', async () => {
  const local = new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'ollama', models: [model] });
  server.respondWith((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ error: { message: "model 'm' not found, try pulling it first: ollama pull m" } }),
    );
  });
  const { error } = await collect(local.chat(request, new AbortController().signal));
  expect((error as AgentError).message).toContain('ollama pull m');
});

it("a client that hides the raw response: the SDK parser's message, which quotes a cut of the chunk, is left out", async () => {
  const sdk = new OpenAI({ apiKey: API_KEY, baseURL: server.baseURL, logLevel: 'off' });
  const wrapper = new OpenAIProvider({
    client: {
      chat: {
        completions: {
          create: (body, options) => Promise.resolve(sdk.chat.completions.create(body, options)),
        },
      },
    },
    models: [model],
  });
  // The parser quotes about 20 characters around the fault: here, the first half of the key.
  server.respondWith((req, res, body) =>
    streamText(`data: {"k": ${API_KEY.slice(0, 12)}|${API_KEY.slice(12)}}\n\n`)(req, res, body),
  );
  const { error } = await collect(wrapper.chat(request, new AbortController().signal));
  expect(error).toMatchObject({ code: 'PROVIDER_ERROR', retryable: false });
  expect(allText(error)).not.toContain(API_KEY.slice(0, 12));
  expect((error as AgentError).message).toBe(
    "provider 'openai' sent a malformed stream chunk (invalid JSON)",
  );
});

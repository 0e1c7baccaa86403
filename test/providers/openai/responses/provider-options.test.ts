/**
 * `OpenAIResponsesProvider`'s options, request and odd answers over real HTTP: invalid options,
 * what one request sends, refusals and messages without deltas (derived), costs the server
 * reports, secrets kept out of errors, and an abort that closes the request.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { OpenAIResponsesProvider } from '../../../../src/openai.js';
import type { ChatRequest } from '../../../../src/types.js';
import { closed, collect, joined, startSse, streamText } from '../../../support/chat-completions-server.js';
import { asAgentError, expectAgentError } from '../../../support/errors.js';
import { chatModel, chatRequest } from '../../../support/models.js';
import { recordedEvents, toSse, withTerminal } from '../../../support/responses-derived.js';
import { readResponsesStream, withResponsesServer } from '../../../support/responses-server.js';

const local = withResponsesServer();
const signal = () => new AbortController().signal;

describe('options', () => {
  it('rejects a client together with apiKey, and unknown keys, with INVALID_INPUT', async () => {
    const client = { responses: { create: () => Promise.reject(new Error('unused')) } };
    await expectAgentError(
      () => new OpenAIResponsesProvider({ client, apiKey: 'k', models: [chatModel('m')] }),
      'INVALID_INPUT',
      "'apiKey'",
    );
    await expectAgentError(
      () =>
        new OpenAIResponsesProvider({
          apiKey: 'k',
          models: [chatModel('m')],
          maxTokensField: 'max_tokens',
        } as never),
      'INVALID_INPUT',
    );
    expect(local.provider().id).toBe('openai-responses');
    expect([local.provider().store, local.provider({ store: true }).store]).toEqual([false, true]);
  });
});

describe('the request', () => {
  it('sends instructions, input, tools, max_output_tokens, stateless, with encrypted reasoning asked for; no previous_response_id', async () => {
    local.server.respondWith(streamText(readResponsesStream('vercel-azure-text.sse')));
    const request: ChatRequest = chatRequest('look', {
      systemPrompt: 'Be brief.',
      maxOutputTokens: 100,
      messages: [
        { type: 'system', content: 'note' },
        {
          type: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', data: 'aGk=', mediaType: 'image/png' },
          ],
        },
      ],
      tools: [{ name: 't', description: 'a tool', parameters: { type: 'object', properties: {} } }],
    });
    await collect(local.provider({ headers: { 'X-Title': 'app' } }).chat(request, signal()));
    const { body, url, headers } = local.server.requests.at(-1)!;
    expect([url, headers['x-title'], headers.authorization]).toEqual([
      '/v1/responses',
      'app',
      'Bearer sk-test-key',
    ]);
    expect(body).toEqual({
      model: 'm',
      instructions: 'Be brief.',
      input: [
        { role: 'system', content: 'note' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'data:image/png;base64,aGk=', detail: 'auto' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 't',
          description: 'a tool',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
      max_output_tokens: 100,
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
    });
  });
});

describe('answers (derived from vercel-azure-text.sse)', () => {
  it('a refusal streams as text', async () => {
    const events = recordedEvents('vercel-azure-text.sse').map((e) =>
      e['type'] === 'response.output_text.delta'
        ? { ...e, type: 'response.refusal.delta', delta: 'I cannot help.' }
        : e,
    );
    const { events: out } = await run(toSse(events));
    expect(joined(out, 'text_delta')).toBe('I cannot help.');
  });

  it('a message that came without deltas gives its text from its done item', async () => {
    const events = recordedEvents('vercel-azure-text.sse').filter(
      (e) => e['type'] !== 'response.output_text.delta',
    );
    const { events: out } = await run(toSse(events));
    expect(joined(out, 'text_delta')).toBe('Hello');
  });

  it("takes the server's cost: OpenRouter's usage.cost (recorded), xAI's cost_in_usd_ticks (derived)", async () => {
    const openrouter = await run(readResponsesStream('pydantic-openrouter-gpt-oss-raw-cot.sse'));
    expect(openrouter.events.find((e) => e.type === 'usage')).toMatchObject({ cost: 0.0000113 });
    const xai = withTerminal(recordedEvents('vercel-xai-reasoning-store-false.sse'), (response) => ({
      type: 'response.completed',
      response: { ...response, usage: { ...(response['usage'] as object), cost_in_usd_ticks: 12_345_000 } },
    }));
    expect((await run(toSse(xai))).events.find((e) => e.type === 'usage')).toMatchObject({ cost: 0.0012345 });
  });
});

async function run(sse: string) {
  local.server.respondWith(streamText(sse));
  return collect(local.provider().chat(chatRequest('hi'), signal()));
}

describe('failures', () => {
  it('keeps the API key and header values out of its errors', async () => {
    local.server.respondWith((req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: `bad key ${req.headers.authorization} ${String(req.headers['x-team'])}` },
        }),
      );
    });
    const { error } = await collect(
      local
        .provider({ apiKey: 'sk-secret-0123456789', headers: { 'X-Team': 'team-secret-42' } })
        .chat(chatRequest('hi'), signal()),
    );
    const failure = asAgentError(error);
    expect(failure.retryable).toBe(false);
    expect(failure.message).toContain('[redacted]');
    expect(failure.message).not.toMatch(/sk-secret-0123456789|team-secret-42/);
  });

  it('an abort mid-stream closes the request on the server and throws REQUEST_CANCELLED', async () => {
    let answered!: (res: ServerResponse) => void;
    const response = new Promise<ServerResponse>((resolve) => (answered = resolve));
    const events = recordedEvents('vercel-azure-text.sse');
    local.server.respondWith((_req, res) => {
      startSse(res);
      res.write(toSse(events.slice(0, 5)));
      answered(res);
    });
    const controller = new AbortController();
    const stream = local.provider().chat(chatRequest('hi'), controller.signal);
    expect((await stream.next()).value).toEqual({ type: 'text_delta', text: 'Hello' });
    const serverSide = closed(await response);
    controller.abort();
    expect(await serverSide).toEqual({ finished: false });
    await expectAgentError(stream.next(), 'REQUEST_CANCELLED');
  });
});

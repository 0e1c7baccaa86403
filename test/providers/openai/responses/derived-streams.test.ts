/**
 * Cases no recording covers, each on a stream DERIVED from a recorded one (the edit is named in
 * the test and in test/support/responses-derived.ts): `response.incomplete`, two parallel calls,
 * `response.failed` after output, rate-limit and invalid-request `error` events, `data:`-only
 * framing with `[DONE]`, rotating item ids, a stream cut before its terminal event, HTTP errors
 * by code, and `store: true`.
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent, Message } from '../../../../src/types.js';
import { collect, joined, streamText } from '../../../support/chat-completions-server.js';
import { asAgentError } from '../../../support/errors.js';
import { chatRequest } from '../../../support/models.js';
import {
  recordedEvents,
  rotateItemIds,
  toSse,
  twoParallelCalls,
  withTerminal,
} from '../../../support/responses-derived.js';
import { doneItems, readResponsesStream, withResponsesServer } from '../../../support/responses-server.js';

const local = withResponsesServer();
const signal = () => new AbortController().signal;

async function run(sse: string, messages?: Message[]) {
  local.server.respondWith(streamText(sse));
  return collect(local.provider().chat(chatRequest('hi', messages ? { messages } : {}), signal()));
}

const incomplete = (reason: string) => (response: Record<string, unknown>) => ({
  type: 'response.incomplete',
  response: { ...response, status: 'incomplete', incomplete_details: { reason } },
});

describe('response.incomplete (derived: the terminal event of a recording replaced)', () => {
  it.each([
    ['max_output_tokens', 'length'],
    ['content_filter', 'content_filter'],
  ])('%s (vercel-azure-text.sse) → done %s, with usage and the items', async (reason, finish) => {
    const { events, error } = await run(
      toSse(withTerminal(recordedEvents('vercel-azure-text.sse'), incomplete(reason))),
    );
    expect(error).toBeUndefined();
    expect(joined(events, 'text_delta')).toBe('Hello');
    expect(events.map((e) => e.type).slice(-3)).toEqual(['usage', 'response_items', 'done']);
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: finish }));
  });

  it('cut while thinking (vercel-openai-reasoning-encrypted-content-step1.sse without its function call): the lone reasoning item is never sent back', async () => {
    const events = recordedEvents('vercel-openai-reasoning-encrypted-content-step1.sse').filter(
      (e) => e['output_index'] !== 1,
    );
    const { events: out } = await run(toSse(withTerminal(events, incomplete('max_output_tokens'))));
    const items = out.find((e) => e.type === 'response_items');
    expect(items?.type === 'response_items' && items.items.map((i) => (i as { type: string }).type)).toEqual([
      'reasoning',
    ]);
    expect(out.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: 'length' }));

    const history: Message[] = [
      { type: 'user', content: [{ type: 'text', text: 'think' }] },
      {
        type: 'assistant',
        content: [],
        status: 'complete',
        ...(items?.type === 'response_items' && {
          providerItems: { provider: items.provider, model: items.model, items: [...items.items] },
        }),
      },
      { type: 'user', content: [{ type: 'text', text: 'go on' }] },
    ];
    await run(toSse(recordedEvents('vercel-azure-text.sse')), history);
    expect(local.server.requests.at(-1)!.body['input']).toEqual([
      { role: 'user', content: 'think' },
      { role: 'user', content: 'go on' },
    ]);
  });
});

describe('two parallel calls in one response (derived from vercel-azure-tool-call.sse: a second call added)', () => {
  it('give two tool calls, by output_index, and finish tool_calls', async () => {
    const { events } = await run(toSse(twoParallelCalls('{"city":"Paris"}')));
    const first = doneItems(readResponsesStream('vercel-azure-tool-call.sse')).find(
      (i) => i['type'] === 'function_call',
    )!;
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', callId: first['call_id'], toolName: first['name'], arguments: first['arguments'] },
      {
        type: 'tool_call',
        callId: 'call_parallel_2',
        toolName: first['name'],
        arguments: '{"city":"Paris"}',
      },
    ]);
    const deltas = events.filter(
      (e): e is Extract<ChatEvent, { type: 'tool_call_delta' }> => e.type === 'tool_call_delta',
    );
    expect(
      deltas
        .filter((d) => d.index === 1)
        .map((d) => d.argumentsDelta)
        .join(''),
    ).toBe('{"city":"Paris"}');
    expect(deltas.find((d) => d.index === 1)).toMatchObject({
      callId: 'call_parallel_2',
      toolName: first['name'],
    });
    expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: 'tool_calls' }));
  });
});

describe('failures reported in the stream (derived)', () => {
  it('response.failed after output began (vercel-azure-text.sse, terminal replaced): the text came, then a retryable error, no items', async () => {
    const sse = toSse(
      withTerminal(recordedEvents('vercel-azure-text.sse'), (response) => ({
        type: 'response.failed',
        response: {
          ...response,
          status: 'failed',
          error: { code: 'server_error', message: 'The server had an error' },
        },
      })),
    );
    const { events, error } = await run(sse);
    expect(events).toEqual([{ type: 'text_delta', text: 'Hello' }]);
    const failure = asAgentError(error);
    expect([failure.code, failure.retryable]).toEqual(['PROVIDER_ERROR', true]);
    expect(failure.message).toContain('The server had an error');
  });

  it.each([
    ['rate_limit_exceeded', true],
    ['server_error', true],
    ['invalid_request_error', false],
    ['context_length_exceeded', false],
  ])(
    'an error event with code %s (vercel-openai-error.sse, code replaced): retryable %s',
    async (code, retryable) => {
      const events = recordedEvents('vercel-openai-error.sse').map((e) =>
        e['type'] === 'error'
          ? { ...e, error: { type: code, code, message: `the ${code}`, param: null } }
          : e,
      );
      const { error } = await run(toSse(events));
      expect([asAgentError(error).retryable, asAgentError(error).message.includes(`the ${code}`)]).toEqual([
        retryable,
        true,
      ]);
    },
  );

  it('the flat error payload of the API reference (data-only framing) is read too', async () => {
    const events = recordedEvents('vercel-openai-error.sse').map((e) =>
      e['type'] === 'error'
        ? { type: 'error', code: 'rate_limit_exceeded', message: 'slow down', param: null }
        : e,
    );
    const { error } = await run(toSse(events, 'data-only'));
    expect([asAgentError(error).retryable, asAgentError(error).message]).toEqual([
      true,
      expect.stringContaining('slow down'),
    ]);
  });

  it('a stream cut before its terminal event (vercel-xai-reasoning-store-false.sse without it) is a retryable truncation, with no items', async () => {
    const events = recordedEvents('vercel-xai-reasoning-store-false.sse').filter(
      (e) => e['type'] !== 'response.completed',
    );
    const { events: out, error } = await run(toSse(events));
    expect(out.some((e) => e.type === 'response_items' || e.type === 'done' || e.type === 'usage')).toBe(
      false,
    );
    expect([asAgentError(error).code, asAgentError(error).retryable]).toEqual(['PROVIDER_ERROR', true]);
  });
});

describe('a server that answers with Chat Completions chunks', () => {
  it('fails at once, not retryable, naming OpenAIProvider', async () => {
    const chunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'Hi' } }],
    };
    const { events, error } = await run(`data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`);
    expect(events).toEqual([]);
    expect([asAgentError(error).retryable, asAgentError(error).message]).toEqual([
      false,
      expect.stringContaining('OpenAIProvider'),
    ]);
  });
});

describe('framings and ids (derived)', () => {
  it.each([
    'vercel-xai-reasoning-store-false.sse',
    'vercel-openai-reasoning-encrypted-content-step1.sse',
    'pydantic-openai-phase-reasoning-function-call.sse',
  ])(
    '%s re-framed data:-only with [DONE], and with its item ids rotated on every event, means the same',
    async (name) => {
      const original = await run(readResponsesStream(name));
      const dataOnly = await run(toSse(recordedEvents(name), 'data-only'));
      expect(dataOnly).toEqual(original);
      const rotated = await run(toSse(rotateItemIds(recordedEvents(name))));
      expect(rotated.error).toBeUndefined();
      const strip = (events: ChatEvent[]) => events.filter((e) => e.type !== 'response_items');
      expect(strip(rotated.events)).toEqual(strip(original.events));
    },
  );
});

describe('HTTP errors', () => {
  it.each([
    ['insufficient_quota', false],
    ['rate_limit_exceeded', true],
  ])('a 429 with code %s: retryable %s', async (code, retryable) => {
    local.server.respondWith((_req, res) => {
      res
        .writeHead(429, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code, type: code, message: code } }));
    });
    const { error } = await collect(local.provider().chat(chatRequest('hi'), signal()));
    expect([asAgentError(error).code, asAgentError(error).retryable]).toEqual(['PROVIDER_ERROR', retryable]);
  });
});

describe('store: true', () => {
  it('sends stored items as references, function calls whole, and asks for no encrypted reasoning', async () => {
    const items = doneItems(readResponsesStream('pydantic-openai-phase-reasoning-function-call.sse'));
    const call = items.find((i) => i['type'] === 'function_call')!;
    const history: Message[] = [
      { type: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        type: 'assistant',
        content: [{ type: 'text', text: 'x' }],
        status: 'complete',
        providerItems: { provider: 'openai-responses', model: 'm', items },
      },
      {
        type: 'tool_call',
        callId: call['call_id'] as string,
        toolName: call['name'] as string,
        arguments: {},
      },
      { type: 'tool_result', callId: call['call_id'] as string, content: 'out', isError: false },
    ];
    local.server.respondWith(streamText(readResponsesStream('pydantic-openai-phase-final-answer.sse')));
    await collect(local.provider({ store: true }).chat(chatRequest('', { messages: history }), signal()));
    const body = local.server.requests.at(-1)!.body;
    expect([body['store'], body['include']]).toEqual([true, undefined]);
    expect(body['input']).toEqual([
      { role: 'user', content: 'q' },
      ...items.map((item) =>
        item['type'] === 'function_call' ? item : { type: 'item_reference', id: item['id'] },
      ),
      { type: 'function_call_output', call_id: call['call_id'], output: 'out' },
    ]);
  });
});

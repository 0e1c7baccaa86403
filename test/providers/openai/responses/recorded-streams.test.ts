/**
 * Replays the 40 recorded Responses API streams (test/fixtures/responses-streams, see SOURCES.md
 * there: OpenAI, Azure, xAI, LM Studio, DeepSeek, Bedrock, OpenRouter, GitHub Copilot) from a
 * local server through `OpenAIResponsesProvider`, with its own `fetch` client and with a real
 * `openai` SDK client. Usage, call and encrypted-item counts are transcribed from SOURCES.md;
 * text, reasoning, calls and items are read from each file independently of the provider.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ChatEvent } from '../../../../src/types.js';
import { asAgentError } from '../../../support/errors.js';
import { collect, joined, streamText } from '../../../support/chat-completions-server.js';
import { chatRequest } from '../../../support/models.js';
import {
  doneItems,
  readResponsesStream,
  sseData,
  withResponsesServer,
} from '../../../support/responses-server.js';

type Usage = [input: number, cached: number, output: number, reasoning: number];

/** From SOURCES.md: usage as input/cached/output/reasoning, function calls, encrypted reasoning items. */
const TABLE: Record<string, { usage: Usage | null; calls: number; encrypted: number }> = {
  'pydantic-bedrock-mantle-step1.sse': { usage: [88, 0, 14, 0], calls: 1, encrypted: 0 },
  'pydantic-bedrock-mantle-step2.sse': { usage: [115, 0, 30, 14], calls: 1, encrypted: 1 },
  'pydantic-bedrock-mantle-step3.sse': { usage: [158, 0, 32, 10], calls: 0, encrypted: 1 },
  'pydantic-deepseek-after-tool.sse': { usage: [440, 384, 14, 0], calls: 0, encrypted: 0 },
  'pydantic-deepseek-function-call.sse': { usage: [366, 256, 59, 14], calls: 1, encrypted: 0 },
  'pydantic-deepseek-text-reasoning.sse': { usage: [90, 0, 15, 7], calls: 0, encrypted: 0 },
  'pydantic-openai-background-queued.sse': { usage: [15, 0, 9, 0], calls: 0, encrypted: 0 },
  'pydantic-openai-background-resume-starting-after.sse': { usage: [15, 0, 9, 0], calls: 0, encrypted: 0 },
  'pydantic-openai-function-call-legacy.sse': { usage: [255, 0, 16, 0], calls: 1, encrypted: 0 },
  'pydantic-openai-gpt5-reasoning-function-call.sse': { usage: [53, 0, 469, 448], calls: 1, encrypted: 1 },
  'pydantic-openai-logprobs.sse': { usage: [25, 0, 10, 0], calls: 0, encrypted: 0 },
  'pydantic-openai-mcp-server-tool.sse': { usage: [1401, 0, 480, 256], calls: 0, encrypted: 2 },
  'pydantic-openai-moderation.sse': { usage: [13, 0, 59, 0], calls: 0, encrypted: 1 },
  'pydantic-openai-o3mini-multi-summary.sse': { usage: [13, 0, 1680, 1408], calls: 0, encrypted: 1 },
  'pydantic-openai-phase-final-answer.sse': { usage: [147, 0, 16, 0], calls: 0, encrypted: 0 },
  'pydantic-openai-phase-reasoning-function-call.sse': { usage: [63, 0, 69, 26], calls: 1, encrypted: 1 },
  'pydantic-openai-text-after-tool-legacy.sse': { usage: [278, 0, 9, 0], calls: 0, encrypted: 0 },
  'pydantic-openai-web-search-reasoning.sse': { usage: [9463, 8320, 582, 512], calls: 0, encrypted: 2 },
  'pydantic-openrouter-gpt-oss-raw-cot.sse': { usage: [78, 0, 37, 22], calls: 0, encrypted: 0 },
  'vercel-azure-reasoning-encrypted-content-step1.sse': { usage: [137, 0, 28, 0], calls: 1, encrypted: 1 },
  'vercel-azure-text.sse': { usage: [11, 0, 11, 0], calls: 0, encrypted: 0 },
  'vercel-azure-tool-call.sse': { usage: [45, 0, 24, 0], calls: 1, encrypted: 0 },
  'vercel-github-copilot-id-rotation.sse': { usage: [19, 0, 105, 44], calls: 0, encrypted: 0 },
  'vercel-lmstudio-basic.sse': { usage: [31, 30, 282, 0], calls: 0, encrypted: 0 },
  'vercel-lmstudio-tool-call.sse': { usage: [182, 2, 61, 48], calls: 1, encrypted: 0 },
  'vercel-openai-code-interpreter-tool.sse': { usage: [6047, 2944, 1623, 1408], calls: 0, encrypted: 0 },
  'vercel-openai-custom-tool.sse': { usage: [50, 0, 20, 0], calls: 0, encrypted: 0 },
  'vercel-openai-error.sse': { usage: null, calls: 0, encrypted: 0 },
  'vercel-openai-file-search-tool.sse': { usage: [3737, 2304, 621, 512], calls: 0, encrypted: 0 },
  'vercel-openai-image-generation-tool.sse': { usage: [2941, 1920, 1249, 1024], calls: 0, encrypted: 0 },
  'vercel-openai-mcp-approval-request.sse': { usage: [422, 0, 48, 0], calls: 0, encrypted: 0 },
  'vercel-openai-phase.sse': { usage: [7112, 3072, 463, 64], calls: 0, encrypted: 0 },
  'vercel-openai-programmatic-tool-calling.sse': { usage: [631, 0, 87, 37], calls: 1, encrypted: 1 },
  'vercel-openai-reasoning-encrypted-content-step1.sse': { usage: [134, 0, 28, 0], calls: 1, encrypted: 1 },
  'vercel-openai-reasoning-encrypted-content-step2.sse': { usage: [221, 0, 26, 0], calls: 1, encrypted: 0 },
  'vercel-openai-reasoning-encrypted-content-step3.sse': { usage: [260, 0, 26, 0], calls: 1, encrypted: 0 },
  'vercel-openai-reasoning-encrypted-content-step4.sse': { usage: [299, 0, 12, 0], calls: 0, encrypted: 0 },
  'vercel-openai-tool-search.sse': { usage: [640, 0, 46, 20], calls: 1, encrypted: 0 },
  'vercel-openai-web-search-tool.sse': { usage: [31073, 3712, 4416, 3712], calls: 0, encrypted: 0 },
  'vercel-xai-reasoning-store-false.sse': { usage: [216, 192, 831, 253], calls: 0, encrypted: 1 },
};

/** What a stream means, read from the file without the provider. */
function expectedOf(sse: string) {
  const events = sseData(sse);
  const textByIndex = new Map<number, string>();
  const reasoningParts = new Map<string, string>();
  for (const e of events) {
    const delta = typeof e['delta'] === 'string' ? e['delta'] : '';
    if (e['type'] === 'response.output_text.delta' || e['type'] === 'response.refusal.delta') {
      const index = e['output_index'] as number;
      textByIndex.set(index, (textByIndex.get(index) ?? '') + delta);
    } else if (e['type'] === 'response.reasoning_summary_text.delta' && delta) {
      const key = `${String(e['output_index'])}s${String(e['summary_index'])}`;
      reasoningParts.set(key, (reasoningParts.get(key) ?? '') + delta);
    } else if (e['type'] === 'response.reasoning_text.delta' && delta) {
      const key = `${String(e['output_index'])}c${String(e['content_index'])}`;
      reasoningParts.set(key, (reasoningParts.get(key) ?? '') + delta);
    }
  }
  const items = doneItems(sse);
  // A message whose text came in no delta shows the text of its done item.
  const done = events.filter((e) => e['type'] === 'response.output_item.done');
  for (const e of done) {
    const item = e['item'] as { type: string; content?: { type: string; text?: string }[] };
    const index = e['output_index'] as number;
    if (item.type === 'message' && !textByIndex.get(index)) {
      textByIndex.set(
        index,
        (item.content ?? []).map((p) => (p.type === 'output_text' ? (p.text ?? '') : '')).join(''),
      );
    }
  }
  const calls = done
    .map((e) => e['item'] as Record<string, string>)
    .filter((item) => item['type'] === 'function_call')
    .map((item) => ({ callId: item['call_id'], toolName: item['name'], arguments: item['arguments'] }));
  return {
    // Deltas arrive in stream order; per item in one order in every recording.
    text: [...textByIndex.values()].join(''),
    reasoning: [...reasoningParts.values()].join('\n\n'),
    calls,
    items,
    terminal: events
      .map((e) => e['type'])
      .find((t) => t === 'response.completed' || t === 'response.incomplete'),
  };
}

const files = readdirSync(new URL('../../../fixtures/responses-streams/', import.meta.url))
  .filter((name) => name.endsWith('.sse'))
  .sort();

const local = withResponsesServer();

describe.each([
  ['its own fetch client', () => local.provider()],
  ['a real openai SDK client', () => local.sdkProvider()],
])('every recorded Responses stream, through %s', (_label, makeProvider) => {
  it('covers the 40 recordings of SOURCES.md', () => {
    expect(files).toEqual(Object.keys(TABLE).sort());
  });

  it.each(files.filter((name) => name !== 'vercel-openai-error.sse'))('%s', async (name) => {
    const sse = readResponsesStream(name);
    const row = TABLE[name]!;
    local.server.respondWith(streamText(sse));
    const { events, error } = await collect(
      makeProvider().chat(chatRequest('hi'), new AbortController().signal),
    );
    expect(error).toBeUndefined();
    const expected = expectedOf(sse);

    expect(joined(events, 'text_delta')).toBe(expected.text);
    expect(joined(events, 'reasoning_delta')).toBe(expected.reasoning);
    expect(calls(events)).toEqual(expected.calls);
    expect(calls(events)).toHaveLength(row.calls);

    const usage = events.find((e) => e.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage).toMatchObject({
      inputTokens: row.usage![0],
      outputTokens: row.usage![2],
    });
    if (usage?.type === 'usage') {
      expect([usage.usage.cachedInputTokens ?? 0, usage.usage.reasoningTokens ?? 0]).toEqual([
        row.usage![1],
        row.usage![3],
      ]);
    }

    const done = events.at(-1);
    expect(done).toEqual({
      type: 'done',
      finishReason: row.calls > 0 ? 'tool_calls' : 'stop',
      ...wireIdentity(sse),
    });
    expect(expected.terminal).toBe('response.completed');

    const items = events.find((e) => e.type === 'response_items');
    expect(items).toEqual({
      type: 'response_items',
      provider: 'openai-responses',
      model: 'm',
      items: expected.items,
    });
    // The encrypted reasoning is the recorded text, byte for byte.
    const encrypted = expected.items.flatMap((item) =>
      typeof item['encrypted_content'] === 'string' ? [item['encrypted_content']] : [],
    );
    expect(encrypted).toHaveLength(row.encrypted);
    for (const blob of encrypted) expect(sse).toContain(JSON.stringify(blob));
    expectEventOrder(events);
  });

  it('vercel-openai-error.sse: the error event fails the request, not retryable (insufficient_quota)', async () => {
    local.server.respondWith(streamText(readResponsesStream('vercel-openai-error.sse')));
    const { events, error } = await collect(
      makeProvider().chat(chatRequest('hi'), new AbortController().signal),
    );
    expect(events).toEqual([]);
    const failure = asAgentError(error);
    expect([failure.code, failure.retryable]).toEqual(['PROVIDER_ERROR', false]);
    expect(failure.message).toContain('insufficient_quota');
    expect(failure.message).toContain('You exceeded your current quota');
  });
});

function calls(events: readonly ChatEvent[]) {
  return events.flatMap((e) =>
    e.type === 'tool_call' ? [{ callId: e.callId, toolName: e.toolName, arguments: e.arguments }] : [],
  );
}

/** Deltas and calls first, then usage, then the items, then exactly one `done`, last. */
function expectEventOrder(events: readonly ChatEvent[]): void {
  const rank = {
    text_delta: 0,
    reasoning_delta: 0,
    tool_call_delta: 0,
    tool_call: 0,
    usage: 1,
    response_items: 2,
    done: 3,
  } as const;
  const ranks = events.map((e) => rank[e.type]);
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  expect(events.filter((e) => e.type === 'usage')).toHaveLength(1);
  expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
}

/** The id of the first response the stream names and the completed response's model. */
function wireIdentity(sse: string): { responseId?: string; responseModel?: string } {
  const responses = sse
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .flatMap((line) => {
      try {
        const data = JSON.parse(line.slice(5)) as { type?: string; response?: { id?: unknown; model?: unknown } };
        return data.response ? [{ type: data.type, ...data.response }] : [];
      } catch {
        return [];
      }
    });
  const id = responses.find((r) => typeof r.id === 'string')?.id as string | undefined;
  const model = responses.find((r) => r.type === 'response.completed')?.model;
  return {
    ...(id !== undefined && { responseId: id }),
    ...(typeof model === 'string' && model !== '' && { responseModel: model }),
  };
}

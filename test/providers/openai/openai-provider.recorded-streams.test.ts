/**
 * Replays the 12 recorded real Chat Completions streams (test/fixtures/chat-completions-sse, see
 * SOURCES.md there) from a local server through the real `openai` SDK and `OpenAIProvider`, and
 * checks the aggregated result against the expected values written in SOURCES.md.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ChatEvent, TokenUsage } from '../../../src/types.js';
import { collect, joined, readFixture, streamText } from '../../support/chat-completions-server.js';
import { withChatServer } from '../../support/chat-server.js';
import { chatModel, chatRequest } from '../../support/models.js';
import { asAgentError } from '../../support/errors.js';

interface Expected {
  text: string;
  reasoning: string | { length: number; startsWith: string; endsWith: string; sha256Prefix?: string };
  toolCalls: { callId: string; toolName: string; arguments: string }[];
  finishReason: string;
  usage?: TokenUsage;
  cost?: number;
}

const PRICED_MODEL = 'priced-model';
// USD per million: input 1, cached input 0.5, output 2.
const pricing = { inputPerMillion: 1, cachedInputPerMillion: 0.5, outputPerMillion: 2 };

/** Transcribed from SOURCES.md ("Provenance and expected aggregated outcome"). */
const successes: Record<string, Expected> = {
  '01-openai-plain-text.sse': {
    text: 'South Atlantic Ocean.',
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
  },
  '02-openai-text-include-usage.sse': {
    text: 'Atlantic Ocean.',
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 22, outputTokens: 4, totalTokens: 26, cachedInputTokens: 0, reasoningTokens: 0 },
    cost: (22 * 1 + 4 * 2) / 1e6,
  },
  '03-openai-tool-call-split-arguments.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'call_c91SqDXlYFuETYv8mUHzz6pp',
        toolName: 'GetWeatherArgs',
        arguments: '{"city":"Edinburgh","country":"UK","units":"c"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 76, outputTokens: 24, totalTokens: 100, reasoningTokens: 0 },
  },
  '04-openai-parallel-tool-calls.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'call_JMW1whyEaYG438VE1OIflxA2',
        toolName: 'GetWeatherArgs',
        arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      {
        callId: 'call_DNYTawLBoN8fj3KN6qU9N1Ou',
        toolName: 'get_stock_price',
        arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 149, outputTokens: 60, totalTokens: 209, reasoningTokens: 0 },
  },
  '05-openai-finish-reason-length.sse': {
    text: '{"',
    reasoning: '',
    toolCalls: [],
    finishReason: 'length',
    usage: { inputTokens: 79, outputTokens: 1, totalTokens: 80, reasoningTokens: 0 },
  },
  '06-openai-refusal.sse': {
    text: "I'm sorry, I can't assist with that request.",
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 79, outputTokens: 11, totalTokens: 90, reasoningTokens: 0 },
  },
  '07-deepseek-reasoner-reasoning-content.sse': {
    text: 'Hello there! 😊 How can I help you today?',
    reasoning: {
      length: 882,
      startsWith: 'Hmm, the user just said "Hello".',
      endsWith: "they might not reply further - and that's okay too.",
      sha256Prefix: 'd29146ea4f40dfde',
    },
    toolCalls: [],
    finishReason: 'stop',
    usage: {
      inputTokens: 6,
      outputTokens: 212,
      totalTokens: 218,
      cachedInputTokens: 0,
      reasoningTokens: 198,
    },
  },
  '08-deepseek-reasoner-tool-call.sse': {
    text: '',
    reasoning:
      'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".',
    toolCalls: [
      {
        callId: 'call_00_ioIn7yN9p1ZOMNpDLwd4MgAF',
        toolName: 'weather',
        arguments: '{"location": "San Francisco"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: {
      inputTokens: 339,
      outputTokens: 83,
      totalTokens: 422,
      cachedInputTokens: 320,
      reasoningTokens: 39,
    },
    // 19 uncached + 320 cached input tokens, 83 output tokens.
    cost: (19 * 1 + 320 * 0.5 + 83 * 2) / 1e6,
  },
  '09-openrouter-reasoning-sse-comments.sse': {
    text: '2 + 2 = 4',
    reasoning: 'This is a simple arithmetic question. 2+2 equals 4.',
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 43, outputTokens: 36, totalTokens: 79, cachedInputTokens: 0, reasoningTokens: 13 },
    // The server's cost wins over the price list.
    cost: 0.000669,
  },
  '12-azure-prompt-filter-results.sse': {
    text: 'Capital of Denmark.',
    reasoning: '',
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 15, outputTokens: 78, totalTokens: 93, cachedInputTokens: 0, reasoningTokens: 64 },
  },
};

const local = withChatServer();

const request = () => chatRequest('Hello', { model: PRICED_MODEL, systemPrompt: 'You are terse.' });

async function replay(file: string) {
  local.server.respondWith(streamText(readFixture(file)));
  const provider = local.provider({ models: [chatModel(PRICED_MODEL, { contextWindow: 128_000, pricing })] });
  return collect(provider.chat(request(), new AbortController().signal));
}

function expectReasoning(actual: string, expected: Expected['reasoning']): void {
  if (typeof expected === 'string') {
    expect(actual).toBe(expected);
    return;
  }
  expect(actual.length).toBe(expected.length);
  expect(actual.startsWith(expected.startsWith)).toBe(true);
  expect(actual.endsWith(expected.endsWith)).toBe(true);
  if (expected.sha256Prefix) {
    expect(createHash('sha256').update(actual, 'utf8').digest('hex').startsWith(expected.sha256Prefix)).toBe(
      true,
    );
  }
}

/** The response id and model of the first chunk that carries them, as `done` reports them. */
function wireIdentity(sse: string): { responseId?: string; responseModel?: string } {
  const chunks = sse
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '[DONE]')
    .flatMap((line) => {
      try {
        return [JSON.parse(line.slice(5)) as { id?: unknown; model?: unknown }];
      } catch {
        return [];
      }
    });
  const id = chunks.find((c) => typeof c.id === 'string' && c.id)?.id as string | undefined;
  const model = chunks.find((c) => typeof c.model === 'string' && c.model)?.model as string | undefined;
  return { ...(id !== undefined && { responseId: id }), ...(model !== undefined && { responseModel: model }) };
}

/** Deltas first, then tool calls, then at most one usage, then exactly one `done`, last. */
function expectEventOrder(events: readonly ChatEvent[]): void {
  const rank = {
    text_delta: 0,
    reasoning_delta: 0,
    tool_call_delta: 0,
    tool_call: 1,
    usage: 2,
    response_items: 2,
    done: 3,
  } as const;
  const ranks = events.map((e) => rank[e.type]);
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  expect(events.filter((e) => e.type === 'usage').length).toBeLessThanOrEqual(1);
  expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('done');
}

describe('OpenAIProvider replays recorded streams over real HTTP', () => {
  for (const [file, expected] of Object.entries(successes)) {
    it(`assembles ${file}`, async () => {
      const { events, error } = await replay(file);
      expect(error).toBeUndefined();
      expectEventOrder(events);
      expect(joined(events, 'text_delta')).toBe(expected.text);
      expectReasoning(joined(events, 'reasoning_delta'), expected.reasoning);
      expect(events.filter((e) => e.type === 'tool_call').map(({ type: _, ...call }) => call)).toEqual(
        expected.toolCalls,
      );
      expect(events.at(-1)).toEqual({
        type: 'done',
        finishReason: expected.finishReason,
        ...wireIdentity(readFixture(file)),
      });
      const usage = events.find((e) => e.type === 'usage');
      if (expected.usage === undefined) {
        expect(usage).toBeUndefined();
      } else {
        expect(usage?.usage).toEqual(expected.usage);
        if (expected.cost !== undefined) expect(usage?.cost).toBeCloseTo(expected.cost, 12);
      }
    });
  }

  it('counts the non-BMP emoji of 07 as two UTF-16 units, as JS does', async () => {
    const { events } = await replay('07-deepseek-reasoner-reasoning-content.sse');
    const text = joined(events, 'text_delta');
    expect(text.length).toBe(41);
    expect([...text].length).toBe(40);
  });

  it('fails 10 (finish reason length, then an error object in a chunk) as a non-retryable provider error', async () => {
    const { events, error } = await replay('10-openrouter-error-in-chunk-length.sse');
    expect(joined(events, 'reasoning_delta')).toBe('We need to respond to a greeting. The user');
    expect(events.some((e) => e.type === 'done' || e.type === 'usage')).toBe(false);
    const agentError = asAgentError(error, 'PROVIDER_ERROR');
    expect(agentError.retryable).toBe(false);
    expect(agentError.message).toContain('Token limit reached');
    expect(agentError.message).toContain("'openai'");
  });

  it('fails 11 (event: error mid-stream) as a non-retryable provider error after the reasoning so far', async () => {
    const { events, error } = await replay('11-groq-error-event-midstream.sse');
    expectReasoning(joined(events, 'reasoning_delta'), {
      length: 412,
      startsWith: 'We need to call the tool with invalid parameters first',
      endsWith: 'Then second call with name: "test". Let\'s do that.',
    });
    expect(joined(events, 'text_delta')).toBe('');
    expect(events.some((e) => e.type === 'done' || e.type === 'usage' || e.type === 'tool_call')).toBe(false);
    const agentError = asAgentError(error, 'PROVIDER_ERROR');
    expect(agentError.retryable).toBe(false);
    expect(agentError.message).toContain('Tool call validation failed:');
  });
});

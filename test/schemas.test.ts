/**
 * Every exported schema of `src/types.ts` and `src/config.ts`: valid samples parse, invalid ones
 * fail. Table-driven; every union variant, strictness (unknown keys), ISO timestamps, token
 * counts, image media types and minimum lengths have samples. A schema added without samples
 * fails the completeness test.
 */
import { describe, it, expect } from 'vitest';
import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import * as configModule from '../src/config.js';
import * as typesModule from '../src/types.js';

// ─── Samples reused across tables ────────────────────────────────────────────────────────

const TS = '2025-03-01T12:00:00.000Z';
const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
const fullUsage = {
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 4,
  reasoningTokens: 2,
  totalTokens: 15,
};
const text = { type: 'text', text: 'hi' };
const image = { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' };
const model = {
  id: 'gpt-4o-mini',
  displayName: 'GPT-4o mini',
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: true, streaming: true },
};
const request = { model: 'm', systemPrompt: 'be brief', messages: [], tools: [], purpose: 'turn' };
const summary = {
  id: 's1',
  title: 'Weather',
  modelId: 'm',
  createdAt: TS,
  updatedAt: TS,
  turnCount: 2,
  eventCount: 9,
};
const errorData = {
  code: 'PROVIDER_ERROR',
  message: '503',
  retryable: true,
  source: 'provider',
};
const memory = { id: 'm1', namespace: 'user', content: 'likes tea', createdAt: TS, updatedAt: TS };
const toolEnd = {
  type: 'tool_call_end',
  callId: 'c',
  toolName: 't',
  output: { content: 'ok' },
  durationMs: 0,
  success: true,
};
const agentEvent = {
  sessionId: 's',
  turnId: 't',
  timestamp: TS,
  sequence: 1,
  payload: { type: 'turn_cancelled' },
};
const hookPayload = {
  event: 'turn_end',
  sessionId: 's',
  turnId: null,
  pluginConfig: null,
  data: null,
  timestamp: TS,
};

/** ISO-8601 strings the timestamp fields must accept and values they must refuse. */
const goodTimestamps = ['2025-03-01T12:00:00Z', '2025-03-01T12:00:00.123Z', '2025-03-01T14:00:00+02:00'];
const badTimestamps: [string, unknown][] = [
  ['a date without time', '2025-03-01'],
  ['a space instead of T', '2025-03-01 12:00:00Z'],
  ['free text', 'yesterday'],
  ['a Date object', new Date(TS)],
  ['epoch milliseconds', 1_740_830_400_000],
  ['an impossible month', '2025-13-01T12:00:00Z'],
];

/** Values a non-negative integer token count must refuse. */
const badCounts: [string, unknown][] = [
  ['a negative count', -1],
  ['a fractional count', 1.5],
  ['a numeric string', '10'],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
];

// ─── The table ───────────────────────────────────────────────────────────────────────────

interface SchemaCase {
  /** Samples that must parse. */
  valid: unknown[];
  /** Samples that must fail, each with what is wrong. */
  invalid: [string, unknown][];
  /**
   * Whether every valid object sample must also fail with an unknown key added (strict objects).
   * Default `true`; `false` for records, whose keys are free.
   */
  strict?: boolean;
}

const cases: Record<string, SchemaCase> = {
  AgentErrorCodeSchema: {
    valid: [...typesModule.AGENT_ERROR_CODES],
    invalid: [
      ['an unknown code', 'OOPS'],
      ['a lower-case code', 'turn_busy'],
      ['a number', 1],
    ],
  },
  ErrorSourceSchema: {
    valid: ['provider', 'tool', 'plugin', 'storage', 'agent'],
    invalid: [
      ['an unknown source', 'network'],
      ['null', null],
    ],
  },
  ContentBlockSchema: {
    valid: [
      text,
      { type: 'text', text: '' },
      image,
      { ...image, mediaType: 'image/svg+xml' },
      { ...image, mediaType: 'image/vnd.microsoft.icon' },
    ],
    invalid: [
      ['an unknown block type', { type: 'audio', data: 'x' }],
      ['text without text', { type: 'text' }],
      ['text that is not a string', { type: 'text', text: 3 }],
      ['an image with empty data', { ...image, data: '' }],
      ['an image without mediaType', { type: 'image', data: 'x' }],
      ['a non-image media type', { ...image, mediaType: 'text/plain' }],
      ['a media type without subtype', { ...image, mediaType: 'image/' }],
      ['a bare subtype', { ...image, mediaType: 'png' }],
      ['a data URL as media type', { ...image, mediaType: 'data:image/png;base64' }],
      ['a text block with image fields', { ...text, mediaType: 'image/png' }],
    ],
  },
  UserInputSchema: {
    valid: [{ content: [text] }, { content: [text, image] }],
    invalid: [
      ['no blocks', { content: [] }],
      ['a string instead of blocks', { content: 'hi' }],
      ['an invalid block', { content: [{ type: 'text' }] }],
      ['nothing', {}],
    ],
  },
  ProviderItemsSchema: {
    valid: [
      {
        provider: 'openai-responses',
        model: 'gpt-5',
        items: [{ type: 'reasoning', id: 'rs_1', encrypted_content: 'e' }],
      },
      { provider: 'p', model: 'm', items: [] },
    ],
    invalid: [
      ['items that are not a list', { provider: 'p', model: 'm', items: {} }],
      ['no model', { provider: 'p', items: [] }],
      ['an unknown key', { provider: 'p', model: 'm', items: [], responseId: 'r' }],
    ],
  },
  MessageStatusSchema: {
    valid: ['complete', 'incomplete'],
    invalid: [['an unknown status', 'partial']],
  },
  MessageSchema: {
    valid: [
      { type: 'user', content: [text, image] },
      { type: 'user', content: [] },
      { type: 'assistant', content: [text], status: 'complete' },
      { type: 'assistant', content: [], status: 'incomplete' },
      {
        type: 'assistant',
        content: [text],
        status: 'complete',
        providerItems: { provider: 'p', model: 'm', items: [{ type: 'message', id: 'msg_1' }] },
      },
      { type: 'tool_call', callId: 'c1', toolName: 'get_weather', arguments: { city: 'Oslo' } },
      { type: 'tool_call', callId: 'c1', toolName: 'get_weather', arguments: '{"city": "Os' },
      { type: 'tool_result', callId: 'c1', content: 'sunny', isError: false },
      { type: 'system', content: 'note' },
    ],
    invalid: [
      ['an unknown message type', { type: 'developer', content: 'x' }],
      ['an assistant message without status', { type: 'assistant', content: [text] }],
      ['an assistant message with an unknown status', { type: 'assistant', content: [text], status: 'done' }],
      ['a user message with string content', { type: 'user', content: 'hi' }],
      ['a tool call without callId', { type: 'tool_call', toolName: 't', arguments: {} }],
      ['a tool result without isError', { type: 'tool_result', callId: 'c1', content: 'x' }],
      [
        'a tool result with object content',
        { type: 'tool_result', callId: 'c1', content: {}, isError: false },
      ],
      ['a system message with blocks', { type: 'system', content: [text] }],
      ['snake_case fields', { type: 'tool_result', call_id: 'c1', content: 'x', is_error: false }],
    ],
  },
  TokenUsageSchema: {
    valid: [usage, fullUsage, { inputTokens: 0, outputTokens: 0, totalTokens: 0 }],
    invalid: [
      ...badCounts.map(([what, n]): [string, unknown] => [
        `${what} of input tokens`,
        { ...usage, inputTokens: n },
      ]),
      ...badCounts.map(([what, n]): [string, unknown] => [
        `${what} of cached tokens`,
        { ...usage, cachedInputTokens: n },
      ]),
      ['a negative reasoning count', { ...usage, reasoningTokens: -2 }],
      ['a fractional total', { ...usage, totalTokens: 15.5 }],
      ['no total', { inputTokens: 1, outputTokens: 1 }],
    ],
  },
  ToolOutputSchema: {
    valid: [{ content: 'ok' }, { content: '', isError: true }, { content: 'ok', metadata: { rows: 3 } }],
    invalid: [
      ['no content', { isError: true }],
      ['non-string content', { content: 42 }],
      ['a string isError', { content: 'x', isError: 'yes' }],
    ],
  },
  ToolSpecSchema: {
    valid: [
      { name: 't', description: 'd', parameters: { type: 'object', properties: {} } },
      { name: 't', description: '', parameters: {} },
    ],
    invalid: [
      ['parameters as a string', { name: 't', description: 'd', parameters: '{}' }],
      ['parameters as an array', { name: 't', description: 'd', parameters: [] }],
      ['no description', { name: 't', parameters: {} }],
    ],
  },
  ModelPricingSchema: {
    valid: [
      { inputPerMillion: 0.15, outputPerMillion: 0.6 },
      { inputPerMillion: 0, cachedInputPerMillion: 0.075, outputPerMillion: 0 },
    ],
    invalid: [
      ['a negative input price', { inputPerMillion: -1, outputPerMillion: 1 }],
      ['a negative cached price', { inputPerMillion: 1, cachedInputPerMillion: -0.1, outputPerMillion: 1 }],
      ['no output price', { inputPerMillion: 1 }],
    ],
  },
  ModelInfoSchema: {
    valid: [model, { ...model, pricing: { inputPerMillion: 1, outputPerMillion: 2 } }],
    invalid: [
      ['an empty id', { ...model, id: '' }],
      ['a zero context window', { ...model, contextWindow: 0 }],
      ['a fractional context window', { ...model, contextWindow: 1000.5 }],
      ['a missing capability', { ...model, capabilities: { toolUse: true, vision: true } }],
      ['an unknown capability', { ...model, capabilities: { ...model.capabilities, audio: true } }],
      ['invalid pricing', { ...model, pricing: { inputPerMillion: 'cheap', outputPerMillion: 1 } }],
    ],
  },
  ChatPurposeSchema: {
    valid: ['turn', 'compaction', 'memory_extraction', 'memory_consolidation'],
    invalid: [['an unknown purpose', 'summary']],
  },
  ChatRequestSchema: {
    valid: [
      request,
      {
        ...request,
        messages: [{ type: 'user', content: [text] }],
        tools: [{ name: 't', description: 'd', parameters: {} }],
        maxOutputTokens: 1,
        purpose: 'memory_consolidation',
      },
    ],
    invalid: [
      ['no purpose', { model: 'm', systemPrompt: '', messages: [], tools: [] }],
      ['a zero output limit', { ...request, maxOutputTokens: 0 }],
      ['a fractional output limit', { ...request, maxOutputTokens: 10.5 }],
      ['an invalid message', { ...request, messages: [{ type: 'user' }] }],
      ['an invalid tool spec', { ...request, tools: [{ name: 't' }] }],
    ],
  },
  ChatEventSchema: {
    valid: [
      { type: 'text_delta', text: 'Hel' },
      { type: 'reasoning_delta', text: 'thinking' },
      { type: 'tool_call', callId: 'c1', toolName: 't', arguments: '{"a":1}' },
      { type: 'tool_call', callId: 'c1', toolName: 't', arguments: '{"a":' },
      { type: 'usage', usage },
      { type: 'usage', usage, cost: 0.0012 },
      { type: 'done', finishReason: 'stop' },
      { type: 'done', finishReason: 'provider_specific_reason' },
      { type: 'response_items', provider: 'p', model: 'm', items: [{ type: 'reasoning', id: 'rs_1' }] },
    ],
    invalid: [
      ['an unknown event', { type: 'finish' }],
      [
        'tool call arguments as an object',
        { type: 'tool_call', callId: 'c1', toolName: 't', arguments: { a: 1 } },
      ],
      ['usage with negative tokens', { type: 'usage', usage: { ...usage, outputTokens: -1 } }],
      ['a cost as a string', { type: 'usage', usage, cost: '0.1' }],
      ['done without finish reason', { type: 'done' }],
      ['a delta without text', { type: 'text_delta' }],
      ['response items without a provider', { type: 'response_items', model: 'm', items: [] }],
    ],
  },
  SkillDefinitionSchema: {
    valid: [
      { name: 'review', description: 'd', prompt: 'p' },
      {
        name: 'code_review_2',
        description: 'd',
        prompt: 'p',
        requiredTools: ['read'],
        allowImplicitInvocation: false,
      },
    ],
    invalid: [
      ['an empty name', { name: '', description: 'd', prompt: 'p' }],
      ['a name with a space', { name: 'code review', description: 'd', prompt: 'p' }],
      ['a name with a slash', { name: '/review', description: 'd', prompt: 'p' }],
      ['a name with a dash', { name: 'code-review', description: 'd', prompt: 'p' }],
      ['required tools as a string', { name: 'r', description: 'd', prompt: 'p', requiredTools: 'read' }],
      ['no prompt', { name: 'r', description: 'd' }],
    ],
  },
  MemorySchema: {
    valid: [memory, { ...memory, sourceSessionId: 's1', tags: ['pref'] }],
    invalid: [
      ['an empty id', { ...memory, id: '' }],
      ['an empty namespace', { ...memory, namespace: '' }],
      ['tags as a string', { ...memory, tags: 'pref' }],
      ...badTimestamps.map(([what, ts]): [string, unknown] => [
        `${what} as createdAt`,
        { ...memory, createdAt: ts },
      ]),
      ...badTimestamps.map(([what, ts]): [string, unknown] => [
        `${what} as updatedAt`,
        { ...memory, updatedAt: ts },
      ]),
    ],
  },
  SessionConfigSchema: {
    valid: [{}, { modelId: 'm' }, { systemPromptOverride: 'Answer in French.' }],
    invalid: [
      ['an empty model id', { modelId: '' }],
      ['a numeric override', { systemPromptOverride: 1 }],
    ],
  },
  SessionEventPayloadSchema: {
    valid: [
      { type: 'user_message', content: [text] },
      { type: 'assistant_message', content: [text], status: 'incomplete' },
      { type: 'tool_call', callId: 'c', toolName: 't', arguments: { a: 1 } },
      { type: 'tool_result', callId: 'c', content: 'r', isError: true },
      { type: 'system_message', content: 'note' },
      { type: 'metadata', key: 'session_config', value: { modelId: 'm' } },
      { type: 'metadata', key: 'context_snapshot', value: [{ type: 'system', content: 'x' }] },
    ],
    invalid: [
      ['a Message type instead of an event type', { type: 'user', content: [text] }],
      ['an assistant message without status', { type: 'assistant_message', content: [text] }],
      ['metadata without key', { type: 'metadata', value: 1 }],
      ['a system message with blocks', { type: 'system_message', content: [text] }],
    ],
  },
  SessionEventSchema: {
    valid: [
      ...goodTimestamps.map((timestamp) => ({
        timestamp,
        payload: { type: 'system_message', content: 'x' },
      })),
    ],
    invalid: [
      ...badTimestamps.map(([what, timestamp]): [string, unknown] => [
        `${what} as timestamp`,
        { timestamp, payload: { type: 'system_message', content: 'x' } },
      ]),
      ['no payload', { timestamp: TS }],
      ['an invalid payload', { timestamp: TS, payload: { type: 'metadata' } }],
    ],
  },
  SessionSummarySchema: {
    valid: [summary, { ...summary, turnCount: 0, eventCount: 0, title: '' }],
    invalid: [
      ...badCounts.map(([what, n]): [string, unknown] => [`${what} of turns`, { ...summary, turnCount: n }]),
      ['a negative event count', { ...summary, eventCount: -1 }],
      ...badTimestamps.map(([what, ts]): [string, unknown] => [
        `${what} as updatedAt`,
        { ...summary, updatedAt: ts },
      ]),
      ['no modelId', { ...summary, modelId: undefined }],
    ],
  },
  SessionPageSchema: {
    valid: [
      { sessions: [], nextCursor: null },
      { sessions: [summary], nextCursor: 'cursor-1' },
    ],
    invalid: [
      ['an omitted cursor', { sessions: [] }],
      ['an undefined cursor', { sessions: [], nextCursor: undefined }],
      ['an invalid summary', { sessions: [{ ...summary, turnCount: -1 }], nextCursor: null }],
    ],
  },
  AgentErrorDataSchema: {
    valid: [errorData, { code: 'TURN_BUSY', message: 'm', retryable: false, source: 'agent' }],
    invalid: [
      ['an unknown code', { ...errorData, code: 'E_FAIL' }],
      ['an unknown source', { ...errorData, source: 'network' }],
      ['no retryable', { code: 'TURN_BUSY', message: 'm', source: 'agent' }],
      ['a cause', { ...errorData, cause: 'x' }],
    ],
  },
  AgentEventPayloadSchema: {
    valid: [
      { type: 'text_delta', text: 'Hi' },
      { type: 'reasoning_delta', text: 'hmm' },
      { type: 'tool_call_start', callId: 'c', toolName: 't', arguments: '{bad json' },
      toolEnd,
      { ...toolEnd, output: { content: 'x', isError: true }, durationMs: 1.5, success: false },
      { type: 'usage', usage },
      { type: 'usage', usage: fullUsage, cost: 0.002 },
      { type: 'context_compacted', tokensBefore: 100_000, tokensAfter: 20_000, strategy: 'micro' },
      { type: 'context_compacted', tokensBefore: 100_000, tokensAfter: 20_000, strategy: 'summary' },
      { type: 'turn_complete', usage, finishReason: 'max_tool_calls' },
      { type: 'turn_cancelled' },
      { type: 'error', error: errorData, fatal: true },
      { type: 'error', error: { ...errorData, retryable: false }, fatal: false },
    ],
    invalid: [
      ['an unknown event type', { type: 'turn_started' }],
      ['a tool end with a string output', { ...toolEnd, output: 'ok' }],
      ['a tool end with a negative duration', { ...toolEnd, durationMs: -1 }],
      ['a tool end without success', { ...toolEnd, success: undefined }],
      [
        'an unknown compaction strategy',
        { type: 'context_compacted', tokensBefore: 1, tokensAfter: 0, strategy: 'full' },
      ],
      [
        'fractional compaction counts',
        { type: 'context_compacted', tokensBefore: 1.5, tokensAfter: 0, strategy: 'micro' },
      ],
      ['a turn_complete without usage', { type: 'turn_complete', finishReason: 'stop' }],
      ['a turn_cancelled with a reason', { type: 'turn_cancelled', reason: 'user' }],
      ['an error without fatal', { type: 'error', error: errorData }],
      [
        'an error whose data has an extra key',
        { type: 'error', error: { ...errorData, stack: '' }, fatal: true },
      ],
      ['an error given as a string', { type: 'error', error: 'boom', fatal: true }],
    ],
  },
  AgentEventSchema: {
    valid: [
      agentEvent,
      {
        ...agentEvent,
        turnId: null,
        timestamp: goodTimestamps[2],
        sequence: 42,
        payload: { type: 'usage', usage },
      },
    ],
    invalid: [
      ['a zero sequence', { ...agentEvent, sequence: 0 }],
      ['a fractional sequence', { ...agentEvent, sequence: 1.5 }],
      ['an undefined turnId', { ...agentEvent, turnId: undefined }],
      ['an invalid payload', { ...agentEvent, payload: { type: 'nope' } }],
      ...badTimestamps.map(([what, timestamp]): [string, unknown] => [
        `${what} as timestamp`,
        { ...agentEvent, timestamp },
      ]),
    ],
  },
  HookEventSchema: {
    valid: [...typesModule.HOOK_EVENTS],
    invalid: [
      ['an unknown event', 'before_request'],
      ['camelCase', 'preRequest'],
    ],
  },
  HookPayloadSchema: {
    valid: [
      hookPayload,
      { ...hookPayload, event: 'turn_start', turnId: 't', pluginConfig: undefined, data: [] },
      {
        ...hookPayload,
        event: 'session_end',
        pluginConfig: { a: 1 },
        data: { reason: 'close', turnCount: 1 },
      },
    ],
    invalid: [
      ['an unknown event', { ...hookPayload, event: 'boot' }],
      ['an undefined turnId', { ...hookPayload, turnId: undefined }],
      ['a bad timestamp', { ...hookPayload, timestamp: 'now' }],
    ],
  },
  HookResultSchema: {
    valid: [
      { type: 'continue' },
      { type: 'continue_with', data: ['section'] },
      { type: 'continue_with', data: undefined },
      { type: 'abort', reason: 'offline' },
      typesModule.HookResult.continueWith({ request }),
    ],
    invalid: [
      ['undefined (a handler may return it, but it is no HookResult)', undefined],
      ['an unknown result', { type: 'skip' }],
      ['abort without reason', { type: 'abort' }],
      ['abort with a non-string reason', { type: 'abort', reason: 1 }],
      ['a camelCase result type', { type: 'continueWith', data: 1 }],
    ],
  },
  EnvironmentContextSchema: {
    strict: false,
    valid: [{}, { os: 'macOS', locale: 'fr-FR' }],
    invalid: [
      ['a numeric value', { cpus: 8 }],
      ['a nested object', { os: { name: 'linux' } }],
      ['an array', ['os']],
      ['a string', 'os: linux'],
    ],
  },
  CompactionConfigSchema: {
    valid: [
      {},
      { enabled: false },
      {
        thresholdRatio: 1,
        reservedOutputTokens: 0,
        bufferTokens: 0,
        keepRecentToolResults: 0,
        keepRecentRatio: 0.5,
        maxConsecutiveFailures: 1,
      },
    ],
    invalid: [
      ['a zero threshold ratio', { thresholdRatio: 0 }],
      ['a threshold ratio above 1', { thresholdRatio: 1.01 }],
      ['a keep-recent ratio of 1', { keepRecentRatio: 1 }],
      ['a zero keep-recent ratio', { keepRecentRatio: 0 }],
      ['negative reserved tokens', { reservedOutputTokens: -1 }],
      ['fractional buffer tokens', { bufferTokens: 0.5 }],
      ['zero allowed failures', { maxConsecutiveFailures: 0 }],
      ['a string flag', { enabled: 'yes' }],
    ],
  },
  MemoryConfigSchema: {
    valid: [
      { namespace: 'user' },
      { namespace: 'user', maxItems: 1, checkpointInterval: 1, extractionModel: 'm', consolidateAbove: 1 },
    ],
    invalid: [
      ['no namespace', {}],
      ['an empty namespace', { namespace: '' }],
      ['zero items', { namespace: 'u', maxItems: 0 }],
      ['a zero checkpoint interval', { namespace: 'u', checkpointInterval: 0 }],
      ['an empty extraction model', { namespace: 'u', extractionModel: '' }],
      ['a zero consolidation threshold', { namespace: 'u', consolidateAbove: 0 }],
      ['a fractional consolidation threshold', { namespace: 'u', consolidateAbove: 100.5 }],
    ],
  },
  RetryConfigSchema: {
    valid: [{}, { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0 }, { maxRetries: 10 }],
    invalid: [
      ['negative retries', { maxRetries: -1 }],
      ['fractional delay', { initialDelayMs: 0.5 }],
      ['a string max delay', { maxDelayMs: '30s' }],
    ],
  },
  ApprovalConfigSchema: {
    valid: [{}, { timeoutMs: 0 }, { policy: () => 'ask', timeoutMs: 60_000 }],
    invalid: [
      ['a policy that is not a function', { policy: 'allow' }],
      ['a negative timeout', { timeoutMs: -1 }],
      ['a fractional timeout', { timeoutMs: 0.5 }],
      ['an unknown key', { ask: true }],
    ],
  },
  AgentConfigSchema: {
    valid: [
      { defaultModel: 'm' },
      {
        defaultModel: 'm',
        systemInstructions: ['a', 'b'],
        personality: 'calm',
        environmentContext: { os: 'linux' },
        toolTimeoutMs: 1,
        maxToolCallsPerTurn: 1,
        hookTimeoutMs: 1,
        compaction: { enabled: false },
        memory: { namespace: 'u' },
        retry: { maxRetries: 0 },
        inspect: () => {},
      },
      { defaultModel: 'm', environmentContext: async () => ({ os: 'linux' }), inspect: { next: () => {} } },
    ],
    invalid: [
      ['no defaultModel', {}],
      ['an empty defaultModel', { defaultModel: '' }],
      ['a zero tool timeout', { defaultModel: 'm', toolTimeoutMs: 0 }],
      ['a zero hook timeout', { defaultModel: 'm', hookTimeoutMs: 0 }],
      ['system instructions as a string', { defaultModel: 'm', systemInstructions: 'be brief' }],
      ['an inspect string', { defaultModel: 'm', inspect: 'console' }],
      ['an inspect null', { defaultModel: 'm', inspect: null }],
      ['an unknown nested retry key', { defaultModel: 'm', retry: { retries: 2 } }],
      ['an unknown nested memory key', { defaultModel: 'm', memory: { namespace: 'u', ttl: 1 } }],
    ],
  },
};

// ─── Tests ───────────────────────────────────────────────────────────────────────────────

/** Every export of the two modules whose name ends in `Schema`. */
const exportedSchemas = Object.entries({ ...typesModule, ...configModule }).filter(([name]) =>
  name.endsWith('Schema'),
) as [string, $ZodType][];

function parses(schema: $ZodType, value: unknown): boolean {
  return z.safeParse(schema, value).success;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

describe('the schema table', () => {
  it('has samples for every exported schema of types.ts and config.ts', () => {
    expect(exportedSchemas.map(([name]) => name).sort()).toEqual(Object.keys(cases).sort());
  });
});

for (const [name, schema] of exportedSchemas) {
  const table = cases[name];
  if (!table) continue; // reported by the completeness test above
  describe(name, () => {
    it.each(table.valid.map((sample, i) => [i, sample] as const))(
      'accepts valid sample #%i',
      (_i, sample) => {
        const result = z.safeParse(schema, sample);
        expect(result.error?.issues ?? []).toEqual([]);
      },
    );

    it.each(table.invalid)('rejects %s', (_what, sample) => {
      expect(parses(schema, sample)).toBe(false);
    });

    const objectSamples = table.valid.filter(isPlainObject);
    if ((table.strict ?? true) && objectSamples.length > 0) {
      it('rejects an unknown key on every valid object sample', () => {
        for (const sample of objectSamples) {
          expect(parses(schema, { ...sample, unexpectedKey: 'x' }), JSON.stringify(sample)).toBe(false);
        }
      });
    }
  });
}

describe('parsed values', () => {
  it('keep raw tool-call arguments (invalid JSON text) as they are', () => {
    const raw = { type: 'tool_call', callId: 'c', toolName: 't', arguments: '{"city": "Os' };
    expect(z.parse(typesModule.MessageSchema, raw)).toEqual(raw);
  });

  it('leave optional fields absent rather than undefined', () => {
    const parsed = z.parse(typesModule.TokenUsageSchema, usage);
    expect(Object.keys(parsed).sort()).toEqual(['inputTokens', 'outputTokens', 'totalTokens']);
  });
});

describe('integers and URLs at the boundaries', () => {
  it('a count takes safe integers only, and says so', async () => {
    const { integer } = await import('../src/vocabulary/checks.js');
    const { parseInput } = await import('../src/validate.js');
    const count = integer().check(z.minimum(0));
    expect(parseInput(count, 3, 'n')).toBe(3);
    for (const bad of [1.5, 2 ** 53, -1, Number.NaN, '3']) {
      expect(() => parseInput(count, bad, 'n')).toThrow(/^invalid n: n: (expected an integer|must be ≥ 0|expected number)$/);
    }
    expect(() => parseInput(count, 1.5, 'n')).toThrow('invalid n: n: expected an integer');
  });

  it('an OpenAI baseURL must parse as a URL', async () => {
    const { OpenAIProviderConfigSchema } = await import('../src/providers/openai/config.js');
    const config = (baseURL: string) => ({ baseURL, models: ['m'] });
    expect(z.safeParse(OpenAIProviderConfigSchema, config('http://127.0.0.1:11434/v1')).success).toBe(true);
    expect(z.safeParse(OpenAIProviderConfigSchema, config('not a url')).success).toBe(false);
    expect(z.safeParse(OpenAIProviderConfigSchema, config('')).success).toBe(false);
  });
});

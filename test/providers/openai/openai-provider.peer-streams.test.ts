/**
 * Replays the 57 streams other projects recorded from 15 services (test/fixtures/peer-streams,
 * see its SOURCES.md) from a local server on 127.0.0.1 through `OpenAIProvider`, over its own
 * `fetch` client and over an `openai` SDK client, and checks what each response means: text,
 * reasoning, tool calls, usage, cost, finish reason, or the error.
 *
 * The table was written by reading each recording (JSON chunk by chunk, choice 0), with these
 * rules of the provider applied, each stated in docs/providers.md: text is `content` (or its
 * `text` parts) plus `refusal`; reasoning is `reasoning_content`, else `reasoning`, else
 * `reasoning_details[].text`, plus `thinking` parts; tool calls are grouped by `index` (a piece
 * without one continues the last call); the finish reason is the last non-null one, or after a
 * bare `[DONE]` `stop` (`tool_calls` with tool calls); the usage is the last one reported.
 * Long texts are pinned by their length in code points, their ends and a sha256 prefix.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { OpenAIProvider } from '../../../src/openai.js';
import type { ChatEvent, ChatRequest, TokenUsage } from '../../../src/types.js';
import { ChatCompletionsServer, collect, joined, readPeerStream, streamText } from './local-server.js';

/** A long text: its length in code points, how it starts and ends, and its sha256 (16 hex digits). */
interface Digest {
  length: number;
  startsWith: string;
  endsWith: string;
  sha256: string;
}

interface Meaning {
  text: string | Digest;
  reasoning: string | Digest;
  toolCalls?: { callId: string; toolName: string; arguments: string }[];
  /** For a response that succeeds. */
  finishReason?: string;
  /** Absent: no usage event. */
  usage?: TokenUsage;
  /** The cost the server reported, in USD. Absent: the usage event has no cost. */
  cost?: number;
  /** For a response that fails, after the text and reasoning above. */
  error?: { retryable: boolean; message: string };
}

const meanings: Record<string, Meaning> = {
  // `usage: null` on every chunk, then a `choices: []` usage chunk.
  'p01-vercel-alibaba-qwen3-text.sse': {
    text: {
      length: 3771,
      startsWith: '## The Festival of Shared Stories: "Tale',
      endsWith: ' story matters. We are woven together."*',
      sha256: 'aa86fa88ea07918e',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 18, outputTokens: 779, totalTokens: 797, cachedInputTokens: 0 },
  },
  'p02-vercel-alibaba-qwen3-reasoning.sse': {
    text: {
      length: 816,
      startsWith: 'The word **"strawberry"** contains **3**',
      endsWith: '== "r"])` returns `3`).  \n\n**Answer: 3**',
      sha256: '7c7a59b12a79eed8',
    },
    reasoning: {
      length: 3301,
      startsWith: "We are asked: \"How many 'r's are in the ",
      endsWith: '(count) -> 3.\n\nYes.\n\nSo final answer: 3.',
      sha256: '0aa0c3bc04e95c53',
    },
    finishReason: 'stop',
    usage: {
      inputTokens: 24,
      outputTokens: 1355,
      totalTokens: 1379,
      cachedInputTokens: 0,
      reasoningTokens: 1084,
    },
  },
  // continuation pieces carry `"id": ""`: they continue call 0, not new calls.
  'p03-vercel-alibaba-qwen3-tool-call.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'call_eee11723464a4b9eb8cee71d',
        toolName: 'weather',
        arguments: '{"location": "San Francisco"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 295, outputTokens: 22, totalTokens: 317, cachedInputTokens: 0 },
  },
  'p04-vercel-deepseek-chat-text-length.sse': {
    text: {
      length: 1855,
      startsWith: '## **Holiday Name:** Starlight Remembran',
      endsWith: ' observe 15 minutes of silent looking at',
      sha256: '2293daa9001bc91d',
    },
    reasoning: '',
    finishReason: 'length',
    usage: { inputTokens: 13, outputTokens: 400, totalTokens: 413, cachedInputTokens: 0 },
  },
  'p05-vercel-deepseek-reasoner-reasoning.sse': {
    text: 'The word "strawberry" contains three "r"s.',
    reasoning: {
      length: 606,
      startsWith: 'We need to count the number of the lette',
      endsWith: 'nd 9. So yes, 3.\n\nThus, the answer is 3.',
      sha256: '01a5d04ca7e849fd',
    },
    finishReason: 'stop',
    usage: {
      inputTokens: 18,
      outputTokens: 219,
      totalTokens: 237,
      cachedInputTokens: 0,
      reasoningTokens: 205,
    },
  },
  // usage both at top level and under `x_groq` on the finish chunk: counted once.
  'p06-vercel-groq-llama-text.sse': {
    text: {
      length: 3189,
      startsWith: 'Introducing "Luminaria" - a new holiday ',
      endsWith: 'per appreciation for the magic of light.',
      sha256: 'ca1f8ad858e90cfa',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 45, outputTokens: 662, totalTokens: 707 },
  },
  'p07-vercel-groq-llama-tool-call-whole.sse': {
    text: '',
    reasoning: '',
    toolCalls: [{ callId: 'tk85n1k4m', toolName: 'weather', arguments: '{}' }],
    finishReason: 'tool_calls',
    usage: { inputTokens: 210, outputTokens: 15, totalTokens: 225 },
  },
  'p08-vercel-groq-qwen3-reasoning.sse': {
    text: {
      length: 347,
      startsWith: 'The word **"strawberry"** is spelled as ',
      endsWith: 'awberry".\n\n**Final Answer**: $\\boxed{3}$',
      sha256: 'c19609678caf916a',
    },
    reasoning: {
      length: 2952,
      startsWith: 'Okay, let me try to figure out how many ',
      endsWith: 'number of R\'s in "strawberry" is three.\n',
      sha256: 'a8661d5bd141de42',
    },
    finishReason: 'stop',
    usage: { inputTokens: 17, outputTokens: 1107, totalTokens: 1124, reasoningTokens: 963 },
  },
  'p09-vercel-mistral-small-text.sse': {
    text: 'Hello, world! This is a test response.',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 13, outputTokens: 8, totalTokens: 21 },
  },
  // a whole tool call without `index` (and without `type`), on the finish chunk.
  'p10-vercel-mistral-small-tool-call-no-index.sse': {
    text: '',
    reasoning: '',
    toolCalls: [{ callId: 'gSIMJiOkT', toolName: 'weather', arguments: '{"location": "San Francisco"}' }],
    finishReason: 'tool_calls',
    usage: { inputTokens: 124, outputTokens: 22, totalTokens: 146 },
  },
  // array-form `content`: `text` parts are the answer, `thinking` parts the reasoning.
  'p11-vercel-mistral-magistral-content-parts.sse': {
    text: '2 + 2 = 4',
    reasoning: 'The user is asking for 2+2. This is basic arithmetic. 2+2=4.',
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 46, totalTokens: 56 },
  },
  // the continuation has no id and `"name": ""`: the name stays `webSearchTool`.
  'p12-vercel-mistral-glm-incremental-tool-call.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'chatcmpl-tool-9f149c74c42f265b',
        toolName: 'webSearchTool',
        arguments: '{"query": "current Berlin weather"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 171, outputTokens: 14, totalTokens: 185, cachedInputTokens: 128 },
  },
  // xAI counts reasoning apart: total 354 = 12 + 2 + 340, and it bills the 340 as output (its `cost_in_usd_ticks`, 10⁻¹⁰ USD each, matches 342 output tokens), so outputTokens is 2 + 340.
  'p13-vercel-compatible-xai-grok3mini-text.sse': {
    text: 'Grok',
    reasoning: {
      length: 1455,
      startsWith: 'First, the user said: "Say a single word',
      endsWith: 'possible, just the word.\n\nResponse: Grok',
      sha256: '822137627c2158b3',
    },
    finishReason: 'stop',
    usage: {
      inputTokens: 12,
      outputTokens: 342,
      totalTokens: 354,
      cachedInputTokens: 11,
      reasoningTokens: 340,
    },
    cost: 1721250 / 1e10,
  },
  // xAI: total 560 = 307 + 26 + 227, so outputTokens is 26 + 227.
  'p14-vercel-compatible-xai-grok3mini-tool-call.sse': {
    text: '',
    reasoning: {
      length: 1069,
      startsWith: 'First, the user is asking about the weat',
      endsWith: ' for now, this is the logical next step.',
      sha256: '7df9a5068fc57ed4',
    },
    toolCalls: [{ callId: 'call_79382389', toolName: 'weather', arguments: '{"location":"San Francisco"}' }],
    finishReason: 'tool_calls',
    usage: {
      inputTokens: 307,
      outputTokens: 253,
      totalTokens: 560,
      cachedInputTokens: 306,
      reasoningTokens: 227,
    },
    cost: 1497500 / 1e10,
  },
  // xAI: total 303 = 12 + 1 + 290, so outputTokens is 1 + 290.
  'p15-vercel-xai-grok3mini-text-trimmed.sse': {
    text: 'Hello',
    reasoning: 'First, the user said',
    finishReason: 'stop',
    usage: {
      inputTokens: 12,
      outputTokens: 291,
      totalTokens: 303,
      cachedInputTokens: 11,
      reasoningTokens: 290,
    },
    cost: 1466250 / 1e10,
  },
  // xAI: total 513 = 291 + 26 + 196, so outputTokens is 26 + 196.
  'p16-vercel-xai-grok3mini-tool-call-trimmed.sse': {
    text: '',
    reasoning: 'First, the user is',
    toolCalls: [{ callId: 'call_55117580', toolName: 'weather', arguments: '{"location":"San Francisco"}' }],
    finishReason: 'tool_calls',
    usage: {
      inputTokens: 291,
      outputTokens: 222,
      totalTokens: 513,
      cachedInputTokens: 290,
      reasoningTokens: 196,
    },
    cost: 1330500 / 1e10,
  },
  // cumulative usage on every chunk: one usage event, the final count.
  'p17-vercel-perplexity-sonar-text.sse': {
    text: '**EcoVista Day**[1][5]',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 11, outputTokens: 434, totalTokens: 445 },
  },
  // cumulative usage on every chunk: one usage event, the final count.
  'p18-vercel-perplexity-sonar-citations.sse': {
    text: 'The current population of **[2][3]',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 336, totalTokens: 346 },
  },
  // the only tool call has `index: 1`.
  'p19-vercel-compatible-anthropic-fallback-tool-index-1.sse': {
    text: 'Reading it.',
    reasoning: '',
    toolCalls: [{ callId: 'toolu_sanitized', toolName: 'read_file', arguments: '{"path": "a.txt"}' }],
    finishReason: 'tool_calls',
  },
  'p20-vercel-cerebras-glm-response1-tool-call.sse': {
    text: '',
    reasoning: {
      length: 423,
      startsWith: 'The user is asking about a "magic number',
      endsWith: 'l this function to get the magic number.',
      sha256: '46f199abdc99b4a9',
    },
    toolCalls: [{ callId: 'bbd2b9d98', toolName: 'nonUsefulTool', arguments: '{}' }],
    finishReason: 'tool_calls',
    usage: {
      inputTokens: 322,
      outputTokens: 104,
      totalTokens: 426,
      cachedInputTokens: 256,
      reasoningTokens: 97,
    },
  },
  'p21-vercel-cerebras-glm-response2-text-and-tool-call.sse': {
    text: '{"result": "2026"}',
    reasoning: {
      length: 461,
      startsWith: 'The nonUsefulTool returned the number 20',
      endsWith: "o the schema, even though it's a number.",
      sha256: '3f7580c61bb0db79',
    },
    toolCalls: [{ callId: 'e0ecf32e0', toolName: 'nonUsefulTool', arguments: '{}' }],
    finishReason: 'tool_calls',
    usage: {
      inputTokens: 433,
      outputTokens: 122,
      totalTokens: 555,
      cachedInputTokens: 256,
      reasoningTokens: 108,
    },
  },
  // `prompt_tokens_details: null` and a top-level `reasoning_tokens`.
  'p22-vercel-azure-deepseek-v4-reasoning.sse': {
    text: {
      length: 2661,
      startsWith: "Exciting news, Knicks fans—there's a bra",
      endsWith: ' See you next April 4—from the logo! 🎯🧡💙',
      sha256: 'aa813f29ebfab7e4',
    },
    reasoning: {
      length: 3832,
      startsWith: 'We need to invent a new holiday around t',
      endsWith: ". That seems fun. I'll craft a response.",
      sha256: '40e744668c3d1cbb',
    },
    finishReason: 'stop',
    usage: { inputTokens: 19, outputTokens: 1720, totalTokens: 1739, reasoningTokens: 0 },
  },
  'p23-vercel-openai-gpt41nano-text-obfuscation.sse': {
    text: {
      length: 1724,
      startsWith: '**Holiday Name:** Harmony Day\n\n**Date:**',
      endsWith: 'ed human experiences and mutual respect.',
      sha256: '53b2d9e583d02b3f',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 16, outputTokens: 300, totalTokens: 316, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  'p24-openai-node-gpt4o-json-content.sse': {
    text: '{"city":"San Francisco","units":"c"}',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 17, outputTokens: 10, totalTokens: 27 },
  },
  'p25-openai-node-gpt4o-content-logprobs.sse': {
    text: '{"city":"San Francisco","units":"f"}',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 17, outputTokens: 10, totalTokens: 27 },
  },
  'p26-openai-node-gpt4o-refusal-logprobs.sse': {
    text: "I'm very sorry, but I can't assist with that request.",
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 17, outputTokens: 13, totalTokens: 30 },
  },
  'p27-openai-node-gpt4o-leading-newlines-derived.sse': {
    text: '\n\n{"city":"San Francisco","units":"c"}',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 17, outputTokens: 10, totalTokens: 27 },
  },
  'p28-openai-python-gpt4o-text.sse': {
    text: {
      length: 159,
      startsWith: "I'm unable to provide real-time weather ",
      endsWith: 'liable weather website or a weather app.',
      sha256: 'c8fffa3408ca8cdd',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 14, outputTokens: 30, totalTokens: 44, reasoningTokens: 0 },
  },
  'p29-openai-python-gpt4o-json-model.sse': {
    text: '{"city":"San Francisco","temperature":61,"units":"f"}',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 79, outputTokens: 14, totalTokens: 93, reasoningTokens: 0 },
  },
  // `n=3`: three interleaved choices. The provider never asks for n > 1 and reads choice 0 only; the usage is the whole response's (all three choices).
  'p30-openai-python-gpt4o-n3-interleaved-choices.sse': {
    text: '{"city":"San Francisco","temperature":65,"units":"f"}',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 79, outputTokens: 42, totalTokens: 121, reasoningTokens: 0 },
  },
  'p31-openai-python-gpt4o-content-logprobs.sse': {
    text: 'Foo!',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 9, outputTokens: 2, totalTokens: 11, reasoningTokens: 0 },
  },
  'p32-openai-python-gpt4o-refusal-logprobs.sse': {
    text: "I'm very sorry, but I can't assist with that.",
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 79, outputTokens: 12, totalTokens: 91, reasoningTokens: 0 },
  },
  'p33-openai-python-gpt4o-strict-tool.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'call_CTf1nWJLqSeRgDqaCG27xZ74',
        toolName: 'get_weather',
        arguments: '{"city":"San Francisco","state":"CA"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 48, outputTokens: 19, totalTokens: 67, reasoningTokens: 0 },
  },
  'p34-openai-python-gpt4o-non-strict-tool.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      {
        callId: 'call_4XzlGBLtUe9dy3GVNV4jhq7h',
        toolName: 'get_weather',
        arguments: '{"city":"New York City"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 44, outputTokens: 16, totalTokens: 60, reasoningTokens: 0 },
  },
  'p35-openai-python-gpt4o-json-object-multiline.sse': {
    text: {
      length: 608,
      startsWith: '\n  {\n    "location": "San Francisco, CA"',
      endsWith: '"condition": "Cloudy"\n      }\n    ]\n  }\n',
      sha256: 'fd5dc0f04c4dbdf7',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 19, outputTokens: 177, totalTokens: 196, reasoningTokens: 0 },
  },
  'p36-pydantic-crusoe-llama-vllm.sse': {
    text: '1, 2, 3, 4, 5',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 46, outputTokens: 14, totalTokens: 60, cachedInputTokens: 0 },
  },
  // reasoning inline as `<think>…</think>` in `content`: delivered as text, tags and all (a decision: no tag parsing). Usage only under `x_groq.usage`.
  'p37-pydantic-groq-r1-think-tags-in-content.sse': {
    text: {
      length: 4045,
      startsWith: '<think>\nOkay, so I want to make Uruguaya',
      endsWith: 'Enjoy your homemade Uruguayan alfajores!',
      sha256: '7e5ceb95d2c171bb',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 21, outputTokens: 988, totalTokens: 1009 },
  },
  // usage only under `x_groq.usage`.
  'p38-pydantic-groq-r1-parsed-reasoning.sse': {
    text: {
      length: 2954,
      startsWith: 'To cook Argentinian alfajores, follow th',
      endsWith: ' texture and optional chocolate coating.',
      sha256: '5ffa31a47d2ba6ca',
    },
    reasoning: {
      length: 3794,
      startsWith: "Alright, so I'm trying to figure out how",
      endsWith: 'hieve an authentic Argentinian alfajor.\n',
      sha256: '30997e4543de6840',
    },
    finishReason: 'stop',
    usage: { inputTokens: 573, outputTokens: 1509, totalTokens: 2082 },
  },
  // usage only under `x_groq.usage`; the server-side search is in `reasoning` text and `executed_tools`, not tool calls for the app.
  'p39-pydantic-groq-compound-web-search.sse': {
    text: {
      length: 200,
      startsWith: 'The weather in San Francisco today is pa',
      endsWith: '-22 km/h and a humidity level of 90-94%.',
      sha256: '5490fde476d45615',
    },
    reasoning: {
      length: 6255,
      startsWith: '<think>\nTo find the current weather in S',
      endsWith: 'rature of 61°F (17°C) and high humidity.',
      sha256: 'f24f84843b889aa0',
    },
    finishReason: 'stop',
    usage: { inputTokens: 5003, outputTokens: 359, totalTokens: 5362 },
  },
  'p40-pydantic-groq-gptoss-tool-call.sse': {
    text: '',
    reasoning: 'We need to call the function with correct parameter "name". Provide a name, e.g., "example".',
    toolCalls: [
      {
        callId: 'fc_bfb39741-3748-4def-9886-a93fc9c64a90',
        toolName: 'get_something_by_name',
        arguments: '{"name":"example"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 304, outputTokens: 49, totalTokens: 353, reasoningTokens: 23 },
  },
  'p41-pydantic-groq-gptoss-text-after-tool.sse': {
    text: 'The tool returned the expected result for the valid call.',
    reasoning: {
      length: 176,
      startsWith: 'The user wants to test error handling by',
      endsWith: 'e have succeeded. Now respond concisely.',
      sha256: '82eb5729bf9d4cfe',
    },
    finishReason: 'stop',
    usage: { inputTokens: 339, outputTokens: 58, totalTokens: 397, reasoningTokens: 38 },
  },
  // `event: error` (status_code 400) after text: a non-retryable error after the text and reasoning that arrived.
  'p42-pydantic-groq-gptoss-error-after-text.sse': {
    text: 'maybe',
    reasoning: {
      length: 361,
      startsWith: 'The user says: "dont make a tool call, j',
      endsWith: 'no tool call. So just plain text: maybe.',
      sha256: '5912a8b8200a4253',
    },
    error: { retryable: false, message: 'Tool choice is required, but model did not call a tool' },
  },
  'p43-pydantic-groq-gptoss-output-tool-call.sse': {
    text: '',
    reasoning: {
      length: 727,
      startsWith: 'We need to comply with tool usage now. T',
      endsWith: 'we call the function with response "no".',
      sha256: '187e7e601ec29610',
    },
    toolCalls: [
      {
        callId: 'fc_299e8414-9e94-4d9c-bd06-c096f8919768',
        toolName: 'final_result',
        arguments: '{"response":"no"}',
      },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 343, outputTokens: 180, totalTokens: 523, reasoningTokens: 153 },
  },
  // `<think>` inline in `content` (delivered as text); a top-level `cached_tokens`.
  'p44-pydantic-hf-together-r1-think-tags.sse': {
    text: {
      length: 4002,
      startsWith: '<think>\nOkay, the user asked "How do I c',
      endsWith: 'ps every time—it could save your life! 🌟',
      sha256: 'da61772146104c5e',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 955, totalTokens: 965, cachedInputTokens: 0 },
  },
  // array-form `content` with `thinking` parts (one has `thinking: []`), then string content.
  'p45-pydantic-mistral-magistral-thinking-parts.sse': {
    text: {
      length: 607,
      startsWith: 'To cross the street safely, follow these',
      endsWith: 'e steps, you can ensure a safe crossing.',
      sha256: 'e61ff78a68761d94',
    },
    reasoning: {
      length: 421,
      startsWith: 'Okay, the user is asking how to cross th',
      endsWith: 'ation into a clear and concise response.',
      sha256: 'fcab447a2e58f5b6',
    },
    finishReason: 'stop',
    usage: { inputTokens: 10, outputTokens: 232, totalTokens: 242 },
  },
  // a `moderation` chunk after the usage chunk, with no usage of its own: the usage stays.
  'p46-pydantic-openai-gpt5-moderation-chunk.sse': {
    text: 'Paris.',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 13, outputTokens: 11, totalTokens: 24, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  'p47-pydantic-openai-gpt4omini-tool-call.sse': {
    text: '',
    reasoning: '',
    toolCalls: [
      { callId: 'call_ZR5UUuTt3pf61kjwAJIYdVMj', toolName: 'get_capital', arguments: '{"country":"UK"}' },
    ],
    finishReason: 'tool_calls',
    usage: { inputTokens: 53, outputTokens: 15, totalTokens: 68, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  'p48-pydantic-openai-gpt4omini-answer.sse': {
    text: 'The capital of the UK is London.',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 78, outputTokens: 9, totalTokens: 87, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  'p49-pydantic-openrouter-gpt4omini-advisor.sse': {
    text: 'I recommend naming your Python retry library `resilix`, as it conveys resilience and is modern and brandable.',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 888, outputTokens: 74, totalTokens: 962, cachedInputTokens: 0, reasoningTokens: 0 },
    cost: 0.0145476,
  },
  // reasoning tokens reported with no reasoning text; the usage chunk after the stop chunk has `finish_reason: null`.
  'p50-pydantic-openrouter-grok4-native-finish.sse': {
    text: {
      length: 284,
      startsWith: "I'm Grok, an AI built by xAI. I'm design",
      endsWith: "kes along the way). What's on your mind?",
      sha256: '0c4f64036387f985',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: {
      inputTokens: 687,
      outputTokens: 187,
      totalTokens: 874,
      cachedInputTokens: 679,
      reasoningTokens: 118,
    },
    cost: 0.00333825,
  },
  // `reasoning_details` of type `reasoning.encrypted`: no text, so no reasoning.
  'p51-pydantic-openrouter-o3-encrypted-reasoning.sse': {
    text: {
      length: 446,
      startsWith: 'I’m ChatGPT, a large-language-model assi',
      endsWith: ' you’d like help with, just let me know!',
      sha256: '863c7d8a882d2101',
    },
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 9, outputTokens: 104, totalTokens: 113, cachedInputTokens: 0, reasoningTokens: 0 },
    cost: 0.00085,
  },
  'p52-pydantic-openrouter-deepseek-web-annotations.sse': {
    text: "The URL for Pydantic AI's GitHub repository is:  \n\nhttps://github.com/pydantic/pydantic-ai",
    reasoning: '',
    finishReason: 'stop',
    usage: {
      inputTokens: 2317,
      outputTokens: 53,
      totalTokens: 2370,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    },
    cost: 0.0076509169000000005,
  },
  'p53-pydantic-openrouter-gpt41mini-web-search-usage.sse': {
    text: 'https://github.com/pydantic/pydantic-ai ',
    reasoning: '',
    finishReason: 'stop',
    usage: {
      inputTokens: 8174,
      outputTokens: 30,
      totalTokens: 8204,
      cachedInputTokens: 0,
      reasoningTokens: 0,
    },
    cost: 0.0133176,
  },
  // no finish reason anywhere, then usage and `[DONE]`: a normal end, reported as `stop`.
  'p54-pydantic-snowflake-claude-no-finish-reason.sse': {
    text: '4',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 22, outputTokens: 5, totalTokens: 27, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  // reasoning only in `reasoning_details[].text`; no finish reason, `[DONE]`: reported as `stop`.
  'p55-pydantic-snowflake-claude-reasoning-details-no-finish.sse': {
    text: "15 × 27 = **405**\n\nHere's the breakdown:\n- 15 × 20 = 300\n- 15 × 7 = 105\n- 300 + 105 = **405**",
    reasoning: '15 * 27 = 405',
    finishReason: 'stop',
    usage: { inputTokens: 45, outputTokens: 73, totalTokens: 118, cachedInputTokens: 0, reasoningTokens: 0 },
  },
  'p56-pydantic-hf-novita-llama-short.sse': {
    text: 'Paris',
    reasoning: '',
    finishReason: 'stop',
    usage: { inputTokens: 40, outputTokens: 2, totalTokens: 42 },
  },
  'p57-pydantic-zai-glm47-reasoning-content.sse': {
    text: '4',
    reasoning: {
      length: 2173,
      startsWith: "\n1.  **Analyze the User's Request:** The",
      endsWith: '\n\n7.  **Draft the final response:** "4".',
      sha256: '960317a214d06504',
    },
    finishReason: 'stop',
    usage: {
      inputTokens: 13,
      outputTokens: 564,
      totalTokens: 577,
      cachedInputTokens: 0,
      reasoningTokens: 561,
    },
  },
};

const model = {
  id: 'peer-model',
  displayName: 'Peer',
  contextWindow: 128_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
};

let server: ChatCompletionsServer;
let viaFetch: OpenAIProvider;
let viaClient: OpenAIProvider;

beforeAll(async () => {
  server = await ChatCompletionsServer.start();
  viaFetch = new OpenAIProvider({ baseURL: server.baseURL, apiKey: 'test-key', models: [model] });
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, logLevel: 'off' });
  viaClient = new OpenAIProvider({ client, models: [model] });
});
afterAll(() => server.close());

const request: ChatRequest = {
  model: model.id,
  systemPrompt: '',
  messages: [{ type: 'user', content: [{ type: 'text', text: 'Hello' }] }],
  tools: [],
  purpose: 'turn',
};

function expectText(actual: string, expected: string | Digest): void {
  if (typeof expected === 'string') {
    expect(actual).toBe(expected);
    return;
  }
  expect({
    length: [...actual].length,
    startsWith: actual.startsWith(expected.startsWith),
    endsWith: actual.endsWith(expected.endsWith),
    sha256: createHash('sha256').update(actual, 'utf8').digest('hex').slice(0, 16),
  }).toEqual({ length: expected.length, startsWith: true, endsWith: true, sha256: expected.sha256 });
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

describe('the peer recordings mean what they say, over real HTTP', () => {
  it('covers every recording in the folder', async () => {
    const { readdirSync } = await import('node:fs');
    const files = readdirSync(new URL('../../fixtures/peer-streams/', import.meta.url)).filter((f) =>
      f.endsWith('.sse'),
    );
    expect(files).toHaveLength(57);
    expect(Object.keys(meanings).sort()).toEqual(files.sort());
  });

  for (const [path, provider] of [
    ['the fetch client', () => viaFetch],
    ['an SDK client', () => viaClient],
  ] as const) {
    describe(`through ${path}`, () => {
      for (const [file, meaning] of Object.entries(meanings)) {
        it(file, async () => {
          server.respondWith(streamText(readPeerStream(file)));
          const { events, error } = await collect(provider().chat(request, new AbortController().signal));
          expectText(joined(events, 'text_delta'), meaning.text);
          expectText(joined(events, 'reasoning_delta'), meaning.reasoning);
          if (meaning.error) {
            expect(AgentError.isInstance(error)).toBe(true);
            const agentError = error as AgentError;
            expect(agentError.code).toBe('PROVIDER_ERROR');
            expect(agentError.retryable).toBe(meaning.error.retryable);
            expect(agentError.message).toContain(meaning.error.message);
            expect(events.filter((e) => e.type !== 'text_delta' && e.type !== 'reasoning_delta')).toEqual([]);
            return;
          }
          expect(error).toBeUndefined();
          expectEventOrder(events);
          expect(events.filter((e) => e.type === 'tool_call').map(({ type: _, ...call }) => call)).toEqual(
            meaning.toolCalls ?? [],
          );
          expect(events.at(-1)).toEqual(expect.objectContaining({ type: 'done', finishReason: meaning.finishReason }));
          const usage = events.find((e) => e.type === 'usage');
          expect(usage?.usage).toEqual(meaning.usage);
          if (meaning.cost === undefined) expect(usage?.cost).toBeUndefined();
          else expect(usage?.cost).toBeCloseTo(meaning.cost, 15);
        });
      }
    });
  }
});

/**
 * The raw side of the peer bench: the same work written directly against the `openai` SDK, as a
 * careful user would without a framework. Stream, assemble text and tool calls, run the tools
 * (concurrently, as the library runs read-only tools), send the results, loop until the answer.
 * @module
 */
import OpenAI from 'openai';
import { API_KEY, SYSTEM_PROMPT, TOOL_DESCRIPTION, type CreateClient } from './client.js';
import { modelIdOf, TOOL_NAME, toolOutput } from './script.js';

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: {
        type: 'object',
        properties: { key: { type: 'string' } },
        required: ['key'],
        additionalProperties: false,
      },
    },
  },
];

/** The tool itself, checking its arguments by hand. */
async function lookup(argumentsText: string): Promise<string> {
  const args = JSON.parse(argumentsText) as { key?: unknown };
  if (typeof args.key !== 'string') return 'error: key must be a string';
  return toolOutput(args.key);
}

/** A tool call being assembled from its streamed pieces. */
interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

export const createClient: CreateClient = ({ baseURL, scenario }) => {
  const model = modelIdOf(scenario);
  let client: OpenAI;
  let messages: OpenAI.ChatCompletionMessageParam[];
  return {
    async setup() {
      client = new OpenAI({ baseURL, apiKey: API_KEY, maxRetries: 0, logLevel: 'off' });
      messages = [{ role: 'system', content: SYSTEM_PROMPT }];
    },
    async turn(text) {
      messages.push({ role: 'user', content: text });
      let toolCalls = 0;
      for (;;) {
        const stream = await client.chat.completions.create({
          model,
          messages,
          tools: TOOLS,
          stream: true,
          stream_options: { include_usage: true },
        });
        let content = '';
        const calls: PendingCall[] = [];
        for await (const chunk of stream) {
          const delta = chunk.choices[0]?.delta;
          if (!delta) continue;
          if (delta.content) content += delta.content;
          for (const piece of delta.tool_calls ?? []) {
            const call = (calls[piece.index] ??= { id: '', name: '', arguments: '' });
            if (piece.id) call.id = piece.id;
            if (piece.function?.name) call.name += piece.function.name;
            if (piece.function?.arguments) call.arguments += piece.function.arguments;
          }
        }
        if (calls.length === 0) {
          messages.push({ role: 'assistant', content });
          return { answer: content, toolCalls };
        }
        messages.push({
          role: 'assistant',
          content: content || null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        });
        const results = await Promise.all(calls.map((call) => lookup(call.arguments)));
        calls.forEach((call, i) =>
          messages.push({ role: 'tool', tool_call_id: call.id, content: results[i]! }),
        );
        toolCalls += calls.length;
      }
    },
    async teardown() {},
  };
};

/**
 * The recorded multi-round tool loops through a whole agent over real HTTP: the request of round
 * n+1 carries round n's output items verbatim and in order (encrypted reasoning byte for byte),
 * then the tool outputs by `call_id`; after the agent is shut down and a new one resumes the
 * session from the same storage, the next request carries them all again, unchanged.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, InMemorySessionStorage, type ToolHandler } from '../../../../src/index.js';
import { createTestAgent } from '../../../support/agent.js';
import { textStream } from '../../../support/responses-derived.js';
import {
  doneItems,
  readResponsesStream,
  streamBodies,
  withResponsesServer,
} from '../../../support/responses-server.js';

const local = withResponsesServer();

const calculator = defineTool({
  name: 'calculator',
  description: 'Arithmetic',
  parameters: z.object({ a: z.number(), b: z.number(), op: z.string() }),
  execute: async ({ arguments: { a, b, op } }) => String(op === 'add' ? a + b : a * b),
});
const fixed = (name: string, output: string) =>
  defineTool({ name, description: name, parameters: z.object({}), execute: async () => output });
const temperature = defineTool({
  name: 'get_temperature',
  description: 'Temperature of a city',
  parameters: z.object({ city: z.string() }),
  execute: async () => '21.0',
});

type Input = Record<string, unknown>[];
const inputOf = (n: number) => local.server.requests[n]!.body['input'] as Input;

/** The `function_call_output`s that answer the calls of `items`, with the tools' outputs. */
function outputsFor(items: readonly Record<string, unknown>[], outputs: readonly string[]): Input {
  return items
    .filter((item) => item['type'] === 'function_call')
    .map((item, i) => ({ type: 'function_call_output', call_id: item['call_id'], output: outputs[i] }));
}

interface Loop {
  name: string;
  files: string[];
  tools: ToolHandler[];
  /** The tool output of each round's call. */
  outputs: string[][];
}

const LOOPS: Loop[] = [
  {
    name: 'OpenAI store:false, 4 rounds (vercel-openai-reasoning-encrypted-content-step1..4)',
    files: [1, 2, 3, 4].map((n) => `vercel-openai-reasoning-encrypted-content-step${n}.sse`),
    tools: [calculator],
    outputs: [['19'], ['57'], ['570'], []],
  },
  {
    name: 'Amazon Bedrock Mantle, 3 rounds (pydantic-bedrock-mantle-step1..3)',
    files: [1, 2, 3].map((n) => `pydantic-bedrock-mantle-step${n}.sse`),
    tools: [fixed('first_tool', 'first result'), fixed('second_tool', 'second result')],
    outputs: [['first result'], ['second result'], []],
  },
  {
    name: 'DeepSeek, function call then answer (pydantic-deepseek-function-call, -after-tool)',
    files: ['pydantic-deepseek-function-call.sse', 'pydantic-deepseek-after-tool.sse'],
    tools: [temperature],
    outputs: [['21.0'], []],
  },
];

describe.each(LOOPS)('$name', ({ files, tools, outputs }) => {
  it('each request carries the previous rounds verbatim, then the tool outputs; so does the first request after a resume', async () => {
    const storage = new InMemorySessionStorage();
    const model = {
      id: 'm',
      displayName: 'm',
      contextWindow: 400_000,
      capabilities: { toolUse: true, vision: false, streaming: true },
    };
    local.server.requests.length = 0;
    local.server.respondWith(
      streamBodies([...files.map(readResponsesStream), textStream('Again.', 'resumed')]),
    );
    const first = await createTestAgent({
      provider: local.provider({ models: [model] }),
      tools,
      sessionStorage: storage,
    });
    const session = await first.agent.newSession();
    const result = await (await session.sendMessage('Compute, please.')).result;
    expect(result.status).toBe('completed');
    expect(local.server.requests).toHaveLength(files.length);

    // Round by round: input(n+1) = input(n) + items(n) + outputs(n), nothing reordered or re-encoded.
    let expected: Input = [{ role: 'user', content: 'Compute, please.' }];
    for (let n = 0; n < files.length; n++) {
      const body = local.server.requests[n]!.body;
      expect(inputOf(n)).toEqual(expected);
      expect([body['store'], body['include']]).toEqual([false, ['reasoning.encrypted_content']]);
      const items = doneItems(readResponsesStream(files[n]!));
      expected = [...expected, ...items, ...outputsFor(items, outputs[n]!)];
    }
    // Byte for byte: each recorded encrypted_content string is in the raw request text.
    const sent = JSON.stringify(local.server.requests.at(-1)!.body);
    for (const file of files.slice(0, -1)) {
      for (const item of doneItems(readResponsesStream(file))) {
        if (typeof item['encrypted_content'] === 'string')
          expect(sent).toContain(JSON.stringify(item['encrypted_content']));
      }
    }
    await first.agent.shutdown();

    const second = await createTestAgent({
      provider: local.provider({ models: [model] }),
      tools,
      sessionStorage: storage,
    });
    const resumed = await second.agent.resumeSession(session.id);
    await (
      await resumed.sendMessage('Once more.')
    ).result;
    expect(inputOf(files.length)).toEqual([...expected, { role: 'user', content: 'Once more.' }]);
    await second.agent.shutdown();
  });
});

describe('call ids a server reuses across responses (derived: pydantic-bedrock-mantle-step1 served twice, then step3)', () => {
  it('get a qualified callId in the session, and their own call_id on the wire', async () => {
    local.server.requests.length = 0;
    const step1 = readResponsesStream('pydantic-bedrock-mantle-step1.sse');
    local.server.respondWith(
      streamBodies([step1, step1, readResponsesStream('pydantic-bedrock-mantle-step3.sse')]),
    );
    const storage = new InMemorySessionStorage();
    const { agent } = await createTestAgent({
      provider: local.provider(),
      tools: [fixed('first_tool', 'one'), fixed('second_tool', 'two')],
      sessionStorage: storage,
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    const callIds = session.messages.flatMap((m) => (m.type === 'tool_call' ? [m.callId] : []));
    expect(callIds).toEqual(['call_0', 'call_0@resp_yqqp3b5eoaaatwfitarja6yi42umok5glfymrqxbh4wwznmisz2q']);
    // Both calls go back as the server named them, each answered by its own output.
    const outputs = inputOf(2).filter((item) => item['type'] === 'function_call_output');
    expect(outputs).toEqual([
      { type: 'function_call_output', call_id: 'call_0', output: 'one' },
      { type: 'function_call_output', call_id: 'call_0', output: 'one' },
    ]);
    expect(
      inputOf(2)
        .filter((item) => item['type'] === 'function_call')
        .map((item) => item['call_id']),
    ).toEqual(['call_0', 'call_0']);
    await agent.shutdown();

    // After a reload the mapping comes from the stored items alone.
    local.server.respondWith(streamBodies([textStream('ok', 'after-reload')]));
    const again = await createTestAgent({ provider: local.provider(), tools: [], sessionStorage: storage });
    const resumed = await again.agent.resumeSession(session.id);
    expect(resumed.messages.flatMap((m) => (m.type === 'tool_call' ? [m.callId] : []))).toEqual(callIds);
    await (
      await resumed.sendMessage('and?')
    ).result;
    expect(inputOf(3).slice(0, inputOf(2).length)).toEqual(inputOf(2));
    await again.agent.shutdown();
  });
});

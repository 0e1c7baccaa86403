/**
 * Structured output through the public API: `sendMessage(input, { output: { schema } })` offers
 * the reserved `final_answer` tool; a valid call completes the turn with `result.output`, an
 * invalid one (or an answer in text) gets a repair round, then `OUTPUT_INVALID`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { FINAL_ANSWER_TOOL, type ConversationItem } from '../../src/index.js';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import * as OutputTexts from '../../src/output/output-texts.js';
import { createTestAgent, recordingTool } from '../support/agent.js';
import { asAgentError, expectAgentError } from '../support/errors.js';
import { errorPayloads, eventsOf, types } from '../support/events.js';
import { current } from '../conversation/support.js';

const Trip = z.object({ city: z.string(), days: z.number().int().min(1) });

const answer = (args: unknown, callId = 'call_answer') =>
  reply.toolCalls([{ name: FINAL_ANSWER_TOOL, arguments: args, callId }]);

describe('structured output', () => {
  it('completes with the validated answer, emitted as `output` before turn_complete', async () => {
    const { agent, provider } = await createTestAgent({ script: [answer({ city: 'Kyoto', days: 3 })] });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan a trip', { output: { schema: Trip, name: 'trip' } });
    const result = await turn.result;
    expectTypeOf(result.output).toEqualTypeOf<{ city: string; days: number } | undefined>();
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Kyoto', days: 3 } });

    const events = await eventsOf(turn);
    expect(types(events).slice(-2)).toEqual(['output', 'turn_complete']);
    expect(events.at(-2)!.payload).toEqual({ type: 'output', output: { city: 'Kyoto', days: 3 } });
    expect(events.at(-1)!.payload).toMatchObject({ finishReason: 'stop' });

    // The request offered the tool, with the schema as its parameters.
    const spec = provider.requests[0]!.tools.find((t) => t.name === FINAL_ANSWER_TOOL)!;
    expect(spec.description).toBe(OutputTexts.toolDescription('trip'));
    expect(spec.parameters).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1 } },
      required: ['city', 'days'],
    });
    // The call keeps its result: the history is valid for the next request.
    expect(session.messages.slice(-2)).toEqual([
      {
        type: 'tool_call',
        callId: 'call_answer',
        toolName: FINAL_ANSWER_TOOL,
        arguments: { city: 'Kyoto', days: 3 },
      },
      { type: 'tool_result', callId: 'call_answer', content: 'Output accepted.', isError: false },
    ]);
    await agent.shutdown();
  });

  it('a turn without output options neither offers the tool nor sets `output`', async () => {
    const { agent, provider } = await createTestAgent({ script: [reply.text('Hello')] });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.output).toBeUndefined();
    expect('output' in result).toBe(false);
    expect(provider.requests[0]!.tools.map((t) => t.name)).not.toContain(FINAL_ANSWER_TOOL);
    await agent.shutdown();
  });

  it('invalid arguments get one repair round whose request says what was wrong', async () => {
    const { agent, provider } = await createTestAgent({
      script: [answer({ city: 'Kyoto', days: 0 }, 'call_1'), answer({ city: 'Kyoto', days: 2 }, 'call_2')],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('Plan', { output: { schema: Trip } })).result;
    expect(result).toMatchObject({ status: 'completed', output: { city: 'Kyoto', days: 2 } });
    const repair = provider.requests[1]!;
    expect(repair.messages.at(-1)).toEqual({
      type: 'tool_result',
      callId: 'call_1',
      content:
        'Invalid final answer: days: must be ≥ 1. Call final_answer again with arguments that match its schema.',
      isError: true,
    });
    expect(repair.tools.map((t) => t.name)).toContain(FINAL_ANSWER_TOOL);
    await agent.shutdown();
  });

  it('arguments that are not JSON name the parse error in the repair', async () => {
    const { agent, provider } = await createTestAgent({
      script: [answer('{"city": "Ky', 'call_1'), answer({ city: 'Kyoto', days: 2 })],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Plan', { output: { schema: Trip } })
    ).result;
    const content = (provider.requests[1]!.messages.at(-1) as { content: string }).content;
    expect(content).toMatch(
      /^Invalid final answer: the arguments are not valid JSON \(.+\)\. Call final_answer again with the whole answer as one JSON object\.$/,
    );
    await agent.shutdown();
  });

  it('fails with a fatal OUTPUT_INVALID once the repairs are spent', async () => {
    const { agent, provider } = await createTestAgent({
      script: [answer({ city: 1 }, 'call_1'), answer({ days: 2 }, 'call_2')],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan', { output: { schema: Trip } });
    const result = await turn.result;
    expect(result.status).toBe('failed');
    expect(result.output).toBeUndefined();
    asAgentError(result.error, 'OUTPUT_INVALID');
    expect(result.error!.message).toBe(
      'the model gave no valid final answer (1 repair round used): Invalid final answer: city: expected string. Call final_answer again with arguments that match its schema.',
    );
    const last = (await eventsOf(turn)).at(-1)!.payload;
    expect(last).toMatchObject({ type: 'error', fatal: true, error: { code: 'OUTPUT_INVALID' } });
    expect(provider.calls).toBe(2);
    // Every call still has its result.
    expect(session.messages.at(-1)).toMatchObject({ type: 'tool_result', callId: 'call_2', isError: true });
    await agent.shutdown();
  });

  it('an answer in plain text is a failed attempt: a system note asks for the tool', async () => {
    const { agent, provider } = await createTestAgent({
      script: [reply.text('Kyoto for 3 days.'), answer({ city: 'Kyoto', days: 3 })],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('Plan', { output: { schema: Trip } })).result;
    expect(result.output).toEqual({ city: 'Kyoto', days: 3 });
    expect(provider.requests[1]!.messages.slice(-2)).toEqual([
      { type: 'assistant', content: [{ type: 'text', text: 'Kyoto for 3 days.' }], status: 'complete' },
      {
        type: 'system',
        content:
          'This turn needs a structured answer: call the final_answer tool with the answer as its arguments instead of answering in text.',
      },
    ]);
    await agent.shutdown();
  });

  it('with maxRepairs 0 the first invalid answer fails the turn', async () => {
    const { agent, provider } = await createTestAgent({ script: [reply.text('no')] });
    const session = await agent.newSession();
    const result = await (
      await session.sendMessage('Plan', { output: { schema: Trip, maxRepairs: 0 } })
    ).result;
    asAgentError(result.error, 'OUTPUT_INVALID');
    expect(provider.calls).toBe(1);
    await agent.shutdown();
  });

  it('other tools run first; calls beside the answer are not run and say why', async () => {
    const lookup = recordingTool('lookup');
    const { agent } = await createTestAgent({
      tools: [lookup.tool],
      script: [
        reply.toolCalls([{ name: 'lookup', arguments: { text: 'kyoto' }, callId: 'c1' }]),
        reply.toolCalls([
          { name: FINAL_ANSWER_TOOL, arguments: { city: 'Kyoto', days: 3 }, callId: 'c2' },
          { name: 'lookup', arguments: { text: 'again' }, callId: 'c3' },
        ]),
        reply.text('Kyoto'), // the next turn
      ],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('Plan', { output: { schema: Trip } })).result;
    expect(result.output).toEqual({ city: 'Kyoto', days: 3 });
    expect(lookup.log).toEqual(['start:kyoto', 'end:kyoto']);
    expect(session.messages.slice(-2)).toEqual([
      { type: 'tool_result', callId: 'c2', content: 'Output accepted.', isError: false },
      { type: 'tool_result', callId: 'c3', content: OutputTexts.notRunBesideAnswer, isError: true },
    ]);
    // The next turn sends that history as it is: every call has its result.
    await (
      await session.sendMessage('Thanks')
    ).result;
    expect(session.messages.filter((m) => m.type === 'tool_call')).toHaveLength(3);
    expect(session.messages.filter((m) => m.type === 'tool_result')).toHaveLength(3);
    await agent.shutdown();
  });

  it('a schema that is not an object is wrapped as { value } for the model and unwrapped for the result', async () => {
    const { agent, provider } = await createTestAgent({ script: [answer({ value: ['Kyoto', 'Nara'] })] });
    const session = await agent.newSession();
    const result = await (
      await session.sendMessage('Cities?', { output: { schema: z.array(z.string()) } })
    ).result;
    expect(result.output).toEqual(['Kyoto', 'Nara']);
    expect(provider.requests[0]!.tools.at(-1)!.parameters).toEqual({
      type: 'object',
      properties: { value: { type: 'array', items: { type: 'string' } } },
      required: ['value'],
      additionalProperties: false,
    });
    await agent.shutdown();
  });

  it('keeps the schema output (transforms applied)', async () => {
    const schema = z.object({ when: z.string().transform((s) => s.toUpperCase()) });
    const { agent } = await createTestAgent({ script: [answer({ when: 'soon' })] });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('When?', { output: { schema } })).result;
    expect(result.output).toEqual({ when: 'SOON' });
    await agent.shutdown();
  });

  it('build() rejects a registered tool named final_answer with NAME_CONFLICT', async () => {
    const reserved = recordingTool(FINAL_ANSWER_TOOL);
    await expectAgentError(createTestAgent({ tools: [reserved.tool] }), 'NAME_CONFLICT');
  });

  it('a tool source offering final_answer has it left out (NAME_CONFLICT), the reserved tool stays', async () => {
    const sourced = recordingTool(FINAL_ANSWER_TOOL);
    const provider = new ScriptedModelProvider({ script: [answer({ city: 'Kyoto', days: 3 })] });
    const { agent } = await createTestAgent({
      provider,
      toolSources: [{ id: 'mcp', tools: async () => [sourced.tool] }],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan', { output: { schema: Trip } });
    const result = await turn.result;
    expect(result.output).toEqual({ city: 'Kyoto', days: 3 });
    expect(sourced.log).toEqual([]);
    const names = provider.requests[0]!.tools.map((t) => t.name);
    expect(names).toEqual([FINAL_ANSWER_TOOL]);
    expect(provider.requests[0]!.tools[0]!.description).toBe(OutputTexts.toolDescription(undefined));
    const errors = errorPayloads(await eventsOf(turn));
    expect(errors).toMatchObject([{ fatal: false, error: { code: 'NAME_CONFLICT' } }]);
    await agent.shutdown();
  });

  it('rejects bad output options with INVALID_INPUT, before any turn starts', async () => {
    const { agent, provider } = await createTestAgent();
    const session = await agent.newSession();
    await expectAgentError(
      session.sendMessage('x', { output: { schema: 'nope' as never } }),
      'INVALID_INPUT',
    );
    await expectAgentError(
      session.sendMessage('x', { output: { schema: Trip, maxRepairs: -1 } }),
      'INVALID_INPUT',
    );
    await expectAgentError(session.sendMessage('x', { stream: true } as never), 'INVALID_INPUT');
    expect(provider.calls).toBe(0);
    await agent.shutdown();
  });

  it('the answer is stored and shows on its turn in the conversation after a resume', async () => {
    const { agent } = await createTestAgent({
      script: [answer({ city: 'Kyoto', days: 3 })],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Plan', { output: { schema: Trip } })
    ).result;
    const finalItem = (items: readonly ConversationItem[]) =>
      items.find((i) => i.kind === 'tool' && i.toolName === FINAL_ANSWER_TOOL);
    const live = finalItem(current(session).items);
    expect(live).toMatchObject({
      status: 'done',
      output: { content: 'Output accepted.', isError: false, metadata: { city: 'Kyoto', days: 3 } },
    });
    await session.close();
    const resumed = await agent.resumeSession(session.id);
    expect(finalItem(current(resumed).items)).toEqual(live);
    expect(resumed.messages).toEqual(session.messages);
    await agent.shutdown();
  });
});

/**
 * Remote = local: the same scripted model in-process and behind the handler (real HTTP on
 * 127.0.0.1) gives the same event payloads in order, the same result and an equal final
 * conversation — for a streamed answer with tools, an approval, structured output and a budget.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, type AgentEvent, type Conversation, type ToolHandler } from '../../src/index.js';
import { reply, ScriptedModelProvider, type ScriptStep } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import {
  remoteFor,
  startHandler,
  serversClosedAfterEach,
  transferTool as transfer,
} from '../server/support.js';

const servers = serversClosedAfterEach();

const weather = defineTool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ arguments: { city } }) => `Sunny in ${city}`,
});

const Trip = z.object({ city: z.string(), days: z.number() });

/** What a turn shows: its payloads in order, its result (errors as their data) and the final conversation. */
interface Outcome {
  payloads: AgentEvent['payload'][];
  result: { status: string; usage: unknown; cost: number | null; output?: unknown; error?: unknown };
  conversation: Conversation;
}

type Drive = (turn: {
  events: { subscribe(next: (e: AgentEvent) => void): unknown };
  approve(callId: string): Promise<void>;
}) => void;

async function local(
  script: ScriptStep[],
  tools: ToolHandler[],
  send: { input: string; options?: object },
  drive?: Drive,
): Promise<Outcome> {
  const provider = new ScriptedModelProvider({ script });
  const { agent } = await createTestAgent({ provider, tools });
  const session = await agent.newSession();
  let conversation!: Conversation;
  session.conversation.subscribe((c) => (conversation = c));
  const options = send.options as { output?: { name: string } } | undefined;
  const turn = await session.sendMessage(send.input, {
    ...(options?.output && { output: { schema: Trip, name: options.output.name } }),
    ...((send.options as { budget?: object })?.budget && {
      budget: (send.options as { budget: object }).budget,
    }),
  });
  const payloads: AgentEvent['payload'][] = [];
  turn.events.subscribe((e) => payloads.push(e.payload));
  drive?.(turn);
  const result = await turn.result;
  await agent.shutdown();
  return { payloads, result: plain(result), conversation };
}

async function remote(
  script: ScriptStep[],
  tools: ToolHandler[],
  send: { input: string; options?: object },
  drive?: Drive,
): Promise<Outcome> {
  const provider = new ScriptedModelProvider({ script });
  const server = await startHandler({ provider, tools }, { outputs: { trip: Trip } });
  servers.push(server);
  const session = await remoteFor(server.url, 'alice').newSession();
  let conversation!: Conversation;
  session.conversation.subscribe((c) => (conversation = c));
  const turn = await session.sendMessage(send.input, send.options);
  const payloads: AgentEvent['payload'][] = [];
  turn.events.subscribe((e) => payloads.push(e.payload));
  drive?.(turn);
  const result = await turn.result;
  await session.close();
  return { payloads, result: plain(result), conversation };
}

function plain(result: {
  status: string;
  usage: unknown;
  cost: number | null;
  output?: unknown;
  error?: { code: string; message: string };
}) {
  return {
    status: result.status,
    usage: result.usage,
    cost: result.cost,
    ...(result.output !== undefined && { output: result.output }),
    ...(result.error && { error: { code: result.error.code, message: result.error.message } }),
  };
}

/** Tool durations differ between two runs; everything else must not. */
function comparable(outcome: Outcome) {
  const strip = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value), (key, v) => (key === 'durationMs' ? 0 : v));
  return {
    payloads: strip(outcome.payloads),
    result: outcome.result,
    conversation: strip(outcome.conversation),
  };
}

const approveAll: Drive = (turn) =>
  turn.events.subscribe((e) => {
    if (e.payload.type === 'approval_requested') void turn.approve(e.payload.callId);
  });

describe('a remote turn is the local turn', () => {
  it('streamed text after a tool round: same payloads, result and conversation', async () => {
    const script = (): ScriptStep[] => [
      reply.toolCalls([{ name: 'weather', arguments: { city: 'Lisbon' }, callId: 'c1' }], {
        usage: { inputTokens: 10, outputTokens: 3 },
      }),
      reply.text('It is sunny in Lisbon today, enjoy the walk.', {
        chunks: 12,
        reasoning: 'easy',
        usage: { inputTokens: 20, outputTokens: 9 },
      }),
    ];
    const send = { input: 'Weather in Lisbon?' };
    const [a, b] = [await local(script(), [weather], send), await remote(script(), [weather], send)];
    expect(b.payloads.filter((p) => p.type === 'text_delta')).toHaveLength(12);
    expect(b.conversation.items.map((i) => i.kind)).toEqual(['user', 'tool', 'assistant']);
    expect(b.conversation.items[2]).toMatchObject({
      text: 'It is sunny in Lisbon today, enjoy the walk.',
      reasoning: 'easy',
    });
    expect(comparable(b)).toEqual(comparable(a));
  });

  it('an approval decided through the remote turn', async () => {
    const script = (): ScriptStep[] => [
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 5 }, callId: 'c9' }]),
      reply.text('Done.'),
    ];
    const send = { input: 'Move 5' };
    const [a, b] = [
      await local(script(), [transfer], send, approveAll),
      await remote(script(), [transfer], send, approveAll),
    ];
    expect(b.payloads.map((p) => p.type)).toContain('approval_resolved');
    expect(comparable(b)).toEqual(comparable(a));
  });

  it('structured output named by the handler', async () => {
    const script = (): ScriptStep[] => [
      reply.toolCalls([{ name: 'final_answer', arguments: { city: 'Porto', days: 3 }, callId: 'f1' }], {
        argumentChunks: 4,
      }),
    ];
    const send = { input: 'Plan a trip', options: { output: { name: 'trip' } } };
    const [a, b] = [await local(script(), [], send), await remote(script(), [], send)];
    expect(b.result.output).toEqual({ city: 'Porto', days: 3 });
    expect(comparable(b)).toEqual(comparable(a));
  });

  it('a turn budget', async () => {
    const script = (): ScriptStep[] => [
      reply.toolCalls([{ name: 'weather', arguments: { city: 'Oslo' }, callId: 'w1' }], {
        usage: { inputTokens: 60, outputTokens: 50 },
      }),
      reply.text('never asked'),
    ];
    const send = { input: 'Weather?', options: { budget: { maxTokens: 100 } } };
    const [a, b] = [await local(script(), [weather], send), await remote(script(), [weather], send)];
    expect(b.payloads.at(-1)).toMatchObject({ type: 'turn_complete', finishReason: 'budget_exceeded' });
    expect(comparable(b)).toEqual(comparable(a));
  });
});

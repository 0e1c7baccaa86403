/**
 * `otelPlugin` over a real `BasicTracerProvider`: the names, kinds, parents and attributes of
 * the spans of a turn, for each kind of turn the scripted model can play.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AgentError, FINAL_ANSWER_TOOL } from '../../src/index.js';
import { otelPlugin } from '../../src/otel.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, guardedTool, recordingTool } from '../support/agent.js';
import { approvalRequested } from '../support/events.js';
import { LONG_ANSWER, SMALL_WINDOW } from '../support/models.js';
import { isChildOf, only, tracing, tree } from './support.js';

const usage = (inputTokens: number, outputTokens: number) => ({ usage: { inputTokens, outputTokens } });
const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
];

describe('otelPlugin spans', () => {
  it('a streamed answer: invoke_agent (INTERNAL) over one chat (CLIENT), with the GenAI attributes', async () => {
    const { tracer, spans } = tracing();
    const { agent } = await createTestAgent({
      plugins: [otelPlugin({ tracer, agentName: 'support' })],
      script: [reply.text('Hello there', { chunks: 3, ...usage(12, 5) })],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const result = await turn.result;

    expect(tree(spans())).toEqual([
      'chat scripted-model (CLIENT) <- invoke_agent support',
      'invoke_agent support (INTERNAL)',
    ]);
    const root = only(spans(), 'invoke_agent support');
    const chat = only(spans(), 'chat scripted-model');
    expect(root.kind).toBe(SpanKind.INTERNAL);
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(root.parentSpanContext).toBeUndefined();
    expect(root.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': session.id,
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': result.usage.inputTokens,
      'gen_ai.usage.output_tokens': result.usage.outputTokens,
      'youyou.turn.status': 'completed',
    });
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 5 });
    expect(chat.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted-model',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['stop'],
    });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    await agent.shutdown();
  });

  it('the turn span is a child of the context active when the turn starts', async () => {
    const { tracer, spans } = tracing();
    const { agent } = await createTestAgent({
      plugins: [otelPlugin({ tracer })],
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    const request = tracer.startSpan('POST /sessions/:id/turns', { kind: SpanKind.SERVER });
    const turn = await context.with(trace.setSpan(context.active(), request), () =>
      session.sendMessage('hi'),
    );
    await turn.result;
    request.end();
    expect(
      isChildOf(only(spans(), 'invoke_agent youyou-agent'), only(spans(), 'POST /sessions/:id/turns')),
    ).toBe(true);
    await agent.shutdown();
  });

  it('tool rounds: parallel read-only calls and a serial mutating one, each an execute_tool under the turn', async () => {
    const { tracer, spans } = tracing();
    const look = recordingTool('look');
    const act = recordingTool('act', { mutating: true });
    const { agent } = await createTestAgent({
      tools: [look.tool, act.tool],
      plugins: [otelPlugin({ tracer })],
      script: [
        reply.toolCalls(
          [
            { name: 'look', arguments: { text: 'a' }, callId: 'c1' },
            { name: 'look', arguments: { text: 'b' }, callId: 'c2' },
          ],
          usage(10, 2),
        ),
        reply.toolCalls([{ name: 'act', arguments: { text: 'x' }, callId: 'c3' }], usage(20, 3)),
        reply.text('done', usage(30, 4)),
      ],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('go')).result;

    const all = spans();
    const root = only(all, 'invoke_agent youyou-agent');
    const chats = all.filter((s) => s.name === 'chat scripted-model');
    const tools = all.filter((s) => s.name.startsWith('execute_tool'));
    expect(chats).toHaveLength(3);
    expect(tools.map((s) => [s.name, s.attributes['gen_ai.tool.call.id']]).sort()).toEqual([
      ['execute_tool act', 'c3'],
      ['execute_tool look', 'c1'],
      ['execute_tool look', 'c2'],
    ]);
    for (const span of [...chats, ...tools]) expect(isChildOf(span, root)).toBe(true);
    for (const span of tools) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(span.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.name': span.name.slice('execute_tool '.length),
      });
      expect(span.attributes['error.type']).toBeUndefined();
    }
    expect(chats.map((s) => s.attributes['gen_ai.response.finish_reasons'])).toEqual([
      ['tool_calls'],
      ['tool_calls'],
      ['stop'],
    ]);
    // The usage sums are the turn's.
    expect(root.attributes['gen_ai.usage.input_tokens']).toBe(60);
    expect(root.attributes['gen_ai.usage.output_tokens']).toBe(9);
    expect(result.usage).toMatchObject({ inputTokens: 60, outputTokens: 9 });
    await agent.shutdown();
  });

  it('a tool error result: execute_tool has error.type', async () => {
    const { tracer, spans } = tracing();
    const broken = recordingTool('broken', { run: () => Promise.reject(new Error('disk full')) });
    const { agent } = await createTestAgent({
      tools: [broken.tool],
      plugins: [otelPlugin({ tracer })],
      script: [reply.toolCalls([{ name: 'broken', arguments: { text: 'a' } }]), reply.text('sorry')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('go')
    ).result;
    const span = only(spans(), 'execute_tool broken');
    expect(span.attributes['error.type']).toBe('TOOL_EXECUTION_ERROR');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    await agent.shutdown();
  });

  it('approvals: one tool_approval per call, ended when decided (allowed and denied)', async () => {
    const { tracer, spans } = tracing();
    const notes = guardedTool('notes');
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      plugins: [otelPlugin({ tracer })],
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
        ]),
        reply.text('noted'),
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('note a and b');
    await approvalRequested(turn, 'c2');
    expect(spans().filter((s) => s.name === 'tool_approval notes')).toHaveLength(0);
    await turn.approve('c1');
    await turn.deny('c2', { reason: 'not b' });
    await turn.result;

    const root = only(spans(), 'invoke_agent youyou-agent');
    const approvals = spans().filter((s) => s.name === 'tool_approval notes');
    expect(
      approvals.map((s) => [s.attributes['gen_ai.tool.call.id'], s.attributes['youyou.approval.approved']]),
    ).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
    for (const span of approvals) {
      expect(span.kind).toBe(SpanKind.INTERNAL);
      expect(isChildOf(span, root)).toBe(true);
    }
    // The approved call ran; the denied one got its error result.
    expect(
      spans()
        .filter((s) => s.name === 'execute_tool notes')
        .map((s) => s.attributes['error.type']),
    ).toEqual([undefined, 'TOOL_EXECUTION_ERROR']);
    await agent.shutdown();
  });

  it('a retried request is one chat span with a retry event per failed attempt', async () => {
    const { tracer, spans } = tracing();
    const overloaded = () =>
      new AgentError('PROVIDER_ERROR', 'overloaded', { retryable: true, retryAfterMs: 1 });
    const { agent, provider } = await createTestAgent({
      config: { retry: { maxRetries: 2, initialDelayMs: 1, maxDelayMs: 2 } },
      plugins: [otelPlugin({ tracer })],
      script: [reply.error(overloaded()), reply.error(overloaded()), reply.text('finally')],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('hi')
    ).result;
    expect(provider.calls).toBe(3);
    const chat = only(spans(), 'chat scripted-model');
    expect(chat.events.map((e) => [e.name, e.attributes])).toEqual([
      ['retry', { 'retry.attempt': 1, 'retry.delay_ms': expect.any(Number), 'error.type': 'PROVIDER_ERROR' }],
      ['retry', { 'retry.attempt': 2, 'retry.delay_ms': expect.any(Number), 'error.type': 'PROVIDER_ERROR' }],
    ]);
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
    await agent.shutdown();
  });

  it('a failed turn: status ERROR with the code’s fixed sentence, error.type on the turn and its chat', async () => {
    const { tracer, spans } = tracing();
    const { agent } = await createTestAgent({
      config: { retry: { maxRetries: 0 } },
      plugins: [otelPlugin({ tracer })],
      script: [reply.error(new AgentError('PROVIDER_ERROR', 'upstream 10.0.0.7:8443 said no'))],
    });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hi')).result;
    expect(result.status).toBe('failed');
    const root = only(spans(), 'invoke_agent youyou-agent');
    expect(root.status).toEqual({ code: SpanStatusCode.ERROR, message: 'the model provider failed' });
    expect(root.attributes).toMatchObject({ 'error.type': 'PROVIDER_ERROR', 'youyou.turn.status': 'failed' });
    const chat = only(spans(), 'chat scripted-model');
    expect(chat.attributes['error.type']).toBe('PROVIDER_ERROR');
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.status, s.events]))).not.toContain('10.0.0.7');
    await agent.shutdown();
  });

  it('a cancelled turn: status UNSET, no error.type; its approval wait ends with it', async () => {
    const { tracer, spans } = tracing();
    const notes = guardedTool('notes');
    const { agent } = await createTestAgent({
      tools: [notes.tool],
      plugins: [otelPlugin({ tracer })],
      script: [reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }])],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('go');
    await approvalRequested(turn, 'c1');
    turn.cancel();
    expect((await turn.result).status).toBe('cancelled');
    const root = only(spans(), 'invoke_agent youyou-agent');
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes['error.type']).toBeUndefined();
    expect(root.attributes['youyou.turn.status']).toBe('cancelled');
    const approval = only(spans(), 'tool_approval notes');
    expect(isChildOf(approval, root)).toBe(true);
    expect(approval.attributes['youyou.approval.by']).toBe('cancel');
    await agent.shutdown();
  });

  it('structured output: the final answer is one chat under the turn; the turn completes', async () => {
    const { tracer, spans } = tracing();
    const { agent } = await createTestAgent({
      plugins: [otelPlugin({ tracer })],
      script: [reply.toolCalls([{ name: FINAL_ANSWER_TOOL, arguments: { city: 'Kyoto' } }])],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Plan', { output: { schema: z.object({ city: z.string() }) } });
    expect((await turn.result).output).toEqual({ city: 'Kyoto' });
    expect(tree(spans())).toEqual([
      'chat scripted-model (CLIENT) <- invoke_agent youyou-agent',
      'invoke_agent youyou-agent (INTERNAL)',
    ]);
    expect(only(spans(), 'invoke_agent youyou-agent').attributes['youyou.turn.status']).toBe('completed');
    await agent.shutdown();
  });

  it('a compaction: compact (INTERNAL) under the turn, its summary request a chat under compact', async () => {
    const { tracer, spans } = tracing();
    const { agent, provider } = await createTestAgent({
      models: [SMALL_WINDOW],
      plugins: [otelPlugin({ tracer })],
      script: [
        reply.text(LONG_ANSWER),
        reply.text('Summary.', usage(100, 7)),
        reply.text('ok', usage(50, 1)),
      ],
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('one')
    ).result;
    const second = await (await session.sendMessage('two')).result;
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'compaction', 'turn']);

    const roots = spans().filter((s) => s.name === 'invoke_agent youyou-agent');
    const compact = only(spans(), 'compact');
    const chats = spans().filter((s) => s.name.startsWith('chat '));
    expect(compact.kind).toBe(SpanKind.INTERNAL);
    expect(isChildOf(compact, roots[1]!)).toBe(true);
    expect(chats.filter((s) => isChildOf(s, compact))).toHaveLength(1);
    expect(chats.filter((s) => isChildOf(s, roots[1]!))).toHaveLength(1);
    // The summary's usage counts in the turn's, as in its result.
    expect(roots[1]!.attributes['gen_ai.usage.input_tokens']).toBe(second.usage.inputTokens);
    expect(second.usage.inputTokens).toBe(150);
    await agent.shutdown();
  });

  it('no content by default; recordContent adds messages, instructions, arguments and results', async () => {
    const look = recordingTool('look');
    const script = () => [
      reply.toolCalls([{ name: 'look', arguments: { text: 'secret-arg' }, callId: 'c1' }]),
      reply.text('the answer'),
    ];
    const plain = tracing();
    const first = await createTestAgent({
      tools: [look.tool],
      plugins: [otelPlugin({ tracer: plain.tracer })],
      script: script(),
    });
    await (
      await (await first.agent.newSession()).sendMessage('my question')
    ).result;
    for (const span of plain.spans())
      for (const key of CONTENT_KEYS) expect(span.attributes[key]).toBeUndefined();
    expect(JSON.stringify(plain.spans().map((s) => s.attributes))).not.toMatch(
      /my question|secret-arg|the answer/,
    );
    await first.agent.shutdown();

    const recorded = tracing();
    const second = await createTestAgent({
      tools: [look.tool],
      config: { systemInstructions: ['Be brief.'] },
      plugins: [otelPlugin({ tracer: recorded.tracer, recordContent: true })],
      script: script(),
    });
    await (
      await (await second.agent.newSession()).sendMessage('my question')
    ).result;
    const [firstChat, secondChat] = recorded.spans().filter((s) => s.name.startsWith('chat '));
    expect(JSON.parse(String(firstChat!.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'my question' }] },
    ]);
    expect(JSON.parse(String(firstChat!.attributes['gen_ai.system_instructions']))[0].content).toContain(
      'Be brief.',
    );
    expect(JSON.parse(String(firstChat!.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'look', arguments: { text: 'secret-arg' } }],
        finish_reason: 'tool_calls',
      },
    ]);
    expect(JSON.parse(String(secondChat!.attributes['gen_ai.input.messages'])).slice(1)).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'c1', name: 'look', arguments: { text: 'secret-arg' } }],
      },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'secret-arg' }] },
    ]);
    expect(JSON.parse(String(secondChat!.attributes['gen_ai.output.messages']))[0].parts).toEqual([
      { type: 'text', content: 'the answer' },
    ]);
    const tool = only(recorded.spans(), 'execute_tool look');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"secret-arg"}');
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('secret-arg');
    await second.agent.shutdown();
  });

  it('on the API’s no-op tracer nothing is recorded and no turn_trace is stored', async () => {
    const { agent, sessionStorage } = await createTestAgent({
      plugins: [otelPlugin({ tracer: trace.getTracerProvider().getTracer('unregistered') })],
      script: [reply.text('ok')],
    });
    const session = await agent.newSession();
    expect((await (await session.sendMessage('hi')).result).status).toBe('completed');
    const stored = (await sessionStorage!.loadSession(session.id)) ?? [];
    expect(stored.some((e) => e.payload.type === 'metadata' && e.payload.key === 'turn_trace')).toBe(false);
    await agent.shutdown();
  });
});

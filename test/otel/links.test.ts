/**
 * A continued turn's `invoke_agent` links to the span of the turn's first start, whose context
 * was stored with the turn (`turn_trace`); a parked approval taken up again opens a new
 * `tool_approval` under the continued turn.
 */
import { SpanKind } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { otelPlugin } from '../../src/otel.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, guardedTool } from '../support/agent.js';
import { approvalRequested } from '../support/events.js';
import { storedCopy } from '../support/history.js';
import { isChildOf, tracing } from './support.js';

describe('otelPlugin links', () => {
  it('a turn continued after a reload links to the original span; its approval is a new tool_approval', async () => {
    const { tracer, spans } = tracing();
    const page1 = guardedTool('notes');
    const first = await createTestAgent({
      tools: [page1.tool],
      plugins: [otelPlugin({ tracer })],
      script: [reply.toolCalls([{ name: 'notes', arguments: { text: 'a' }, callId: 'c1' }])],
    });
    const session = await first.agent.newSession();
    const turn = await session.sendMessage('note a');
    await approvalRequested(turn, 'c1');
    // The page goes away while the card waits: what it stored is what the next page finds.
    const storage = await storedCopy(first.sessionStorage!, session.id);
    turn.cancel();
    await turn.result;
    const [original] = spans().filter((s) => s.name === 'invoke_agent youyou-agent');
    const traceRecord = (await storage.loadSession(session.id))!.find(
      (e) => e.payload.type === 'metadata' && e.payload.key === 'turn_trace',
    );
    const { traceId, spanId } = original!.spanContext();
    expect(traceRecord?.payload).toMatchObject({
      value: { turnId: turn.id, traceparent: `00-${traceId}-${spanId}-01` },
    });
    // Ended when the page let go, not left open while nobody could decide.
    expect(spans().filter((s) => s.name === 'tool_approval notes')).toHaveLength(1);

    const page2 = guardedTool('notes');
    const second = await createTestAgent({
      tools: [page2.tool],
      sessionStorage: storage,
      plugins: [otelPlugin({ tracer })],
      script: [reply.text('noted')],
    });
    const resumed = await second.agent.resumeSession(session.id);
    const continued = await resumed.continueTurn();
    await approvalRequested(continued, 'c1');
    await continued.approve('c1');
    expect((await continued.result).status).toBe('completed');

    const roots = spans().filter((s) => s.name === 'invoke_agent youyou-agent');
    expect(roots).toHaveLength(2);
    const next = roots[1]!;
    expect(next.kind).toBe(SpanKind.INTERNAL);
    expect(next.spanContext().spanId).not.toBe(spanId);
    expect(next.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      [traceId, spanId],
    ]);
    expect(next.attributes['gen_ai.conversation.id']).toBe(session.id);
    const approvals = spans().filter((s) => s.name === 'tool_approval notes');
    expect(approvals).toHaveLength(2);
    expect(isChildOf(approvals[1]!, next)).toBe(true);
    expect(approvals[1]!.attributes['youyou.approval.approved']).toBe(true);
    // The continuation stores no trace of its own: a later one links to the same original.
    const stored = (await storage.loadSession(session.id))!.filter(
      (e) => e.payload.type === 'metadata' && e.payload.key === 'turn_trace',
    );
    expect(stored).toHaveLength(1);
    await first.agent.shutdown();
    await second.agent.shutdown();
  });
});

/**
 * The plugin's spans through a real export: `OpenAIProvider` over HTTP on 127.0.0.1 (with a
 * planted key), the OTel SDK with `@opentelemetry/exporter-trace-otlp-http`, and a local OTLP
 * receiver that keeps what it is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../../src/index.js';
import { otelPlugin } from '../../src/otel.js';
import { ChatCompletionsServer, sseEvent, startSse } from '../support/chat-completions-server.js';
import { withChatServer } from '../support/chat-server.js';
import './support.js';

const PLANTED_KEY = 'sk-planted-4f1c9e2b7d';

/** An OTLP/HTTP receiver on 127.0.0.1: the raw bodies it was sent to `/v1/traces`. */
async function otlpReceiver(): Promise<{ url: string; bodies: string[]; close(): Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(raw);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

interface OtlpSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

const spansOf = (bodies: readonly string[]): OtlpSpan[] =>
  bodies.flatMap((body) =>
    (JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans.flatMap(
      (r) => r.scopeSpans.flatMap((s) => s.spans),
    ),
  );
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
};

describe('otelPlugin through an OTLP exporter', () => {
  const chat = withChatServer();
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
  });
  afterAll(() => receiver.close());

  it('the spans of a turn over OpenAIProvider arrive in the OTLP payload, with the wire’s response id and model, and no key', async () => {
    const server: ChatCompletionsServer = chat.server;
    server.respondWith((_req, res) => {
      startSse(res);
      const chunk = { id: 'chatcmpl-77', model: 'm-2026-01-01', object: 'chat.completion.chunk' };
      res.write(sseEvent({ ...chunk, choices: [{ index: 0, delta: { content: 'Hi there' } }] }));
      res.write(sseEvent({ ...chunk, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
      res.write(
        sseEvent({
          ...chunk,
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
        }),
      );
      res.end('data: [DONE]\n\n');
    });
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: receiver.url }))],
    });
    const agent = await new AgentBuilder({ defaultModel: 'm' })
      .registerModelProvider(chat.provider({ apiKey: PLANTED_KEY }))
      .registerPlugin(otelPlugin({ tracer: tracerProvider.getTracer('youyou-agent'), recordContent: true }))
      .build();
    const session = await agent.newSession();
    const result = await (await session.sendMessage('hello')).result;
    expect(result.status).toBe('completed');
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${PLANTED_KEY}`);
    await tracerProvider.forceFlush();
    await agent.shutdown();
    await tracerProvider.shutdown();

    const spans = spansOf(receiver.bodies);
    expect(spans.map((s) => s.name).sort()).toEqual(['chat m', 'invoke_agent youyou-agent']);
    const root = spans.find((s) => s.name === 'invoke_agent youyou-agent')!;
    const request = spans.find((s) => s.name === 'chat m')!;
    expect(request.parentSpanId).toBe(root.spanId);
    expect(request.traceId).toBe(root.traceId);
    expect(attribute(request, 'gen_ai.provider.name')).toBe('openai');
    expect(attribute(request, 'gen_ai.response.id')).toBe('chatcmpl-77');
    expect(attribute(request, 'gen_ai.response.model')).toBe('m-2026-01-01');
    expect(attribute(request, 'gen_ai.usage.input_tokens')).toBe(9);
    expect(attribute(root, 'gen_ai.conversation.id')).toBe(session.id);
    expect(attribute(root, 'gen_ai.usage.output_tokens')).toBe(2);
    const payload = receiver.bodies.join('\n');
    expect(payload).toContain('Hi there');
    expect(payload).not.toContain(PLANTED_KEY);
    expect(payload).not.toContain('planted');
  });
});

/**
 * A real OpenTelemetry SDK for the otel tests: a `BasicTracerProvider` whose spans end up in an
 * `InMemorySpanExporter`, and the async-hooks context manager, so `context.with` works.
 * @module
 */
import { context, SpanKind, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

/** A tracer and the spans it ended. */
export function tracing(): { tracer: Tracer; spans: () => ReadableSpan[]; provider: BasicTracerProvider } {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans(), provider };
}

/** The one span named `name` (fails when there is not exactly one). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1)
    throw new Error(
      `expected one span '${name}', found ${found.length}: ${spans.map((s) => s.name).join(', ')}`,
    );
  return found[0]!;
}

/** Whether `child`'s parent is `parent`. */
export const isChildOf = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

/** Each span as `name (kind) <- parent name`, in end order: the shape of a trace at a glance. */
export function tree(spans: readonly ReadableSpan[]): string[] {
  const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  return spans.map((span) => {
    const parent = span.parentSpanContext ? byId.get(span.parentSpanContext.spanId) : undefined;
    return `${span.name} (${SpanKind[span.kind]})${parent ? ` <- ${parent.name}` : ''}`;
  });
}

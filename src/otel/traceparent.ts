/**
 * The W3C `traceparent` of a span context, both ways: it is how a turn's trace is stored with
 * the turn, so that its continuation can link to it.
 * @module
 */
import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** `00-{traceId}-{spanId}-{flags}` of `spanContext`, or `null` when it is not valid. */
export function formatTraceparent(spanContext: SpanContext): string | null {
  if (!isSpanContextValid(spanContext)) return null;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/** The span context a stored `traceparent` names (remote), or `null` when it is malformed. */
export function parseTraceparent(traceparent: string): SpanContext | null {
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return null;
  const spanContext: SpanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : null;
}

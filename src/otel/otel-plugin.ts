/**
 * `otelPlugin`: OpenTelemetry spans of an agent's turns, following the GenAI semantic
 * conventions. It watches the sessions (it changes nothing they do) and keeps the spans of each
 * session's turn in flight.
 * @module
 */
import { context, SpanKind, trace, type Link, type Tracer } from '@opentelemetry/api';
import type { Plugin, RuntimeWatcher, WatchedRequest, WatchedTurn } from '../ports/plugin.js';
import type { AgentEvent } from '../types.js';
import { chatSpan, TurnSpans, type SpanSettings } from './turn-spans.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';

/** Options of {@link otelPlugin}. */
export interface OtelPluginOptions {
  /** Where the spans go. Default: `trace.getTracer('youyou-agent')` (the global provider's). */
  tracer?: Tracer;
  /** `gen_ai.agent.name`, and the turn span's name `invoke_agent {agentName}`. Default `'youyou-agent'`. */
  agentName?: string;
  /**
   * Record messages, system instructions, tool arguments and results on the spans. Default
   * `false`: they may hold personal data.
   */
  recordContent?: boolean;
}

/**
 * A plugin that traces every turn: `invoke_agent {agentName}` per turn (its parent is the
 * context active when the turn starts), and under it `chat {model}` per model request (retries
 * as `retry` events), `execute_tool {tool}`, `tool_approval {tool}` and `compact`. A continued
 * turn's span links to the span of its first start.
 * @example
 * import { otelPlugin } from 'youyou-agent/otel';
 * const agent = await new AgentBuilder().registerProvider(provider).registerPlugin(otelPlugin({ agentName: 'support' })).build();
 */
export function otelPlugin(options: OtelPluginOptions = {}): Plugin {
  const agentName = options.agentName ?? 'youyou-agent';
  const settings: SpanSettings = {
    tracer: options.tracer ?? trace.getTracer('youyou-agent'),
    recordContent: options.recordContent === true,
  };
  /** The turn in flight of each session, while it is traced. */
  const turns = new Map<string, TurnSpans>();

  const watcher: RuntimeWatcher = {
    turnStarted(turn: WatchedTurn) {
      const parent = context.active();
      const original = turn.continued && turn.traceparent !== null ? parseTraceparent(turn.traceparent) : null;
      const links: Link[] = original ? [{ context: original }] : [];
      const span = settings.tracer.startSpan(
        `invoke_agent ${agentName}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.agent.name': agentName,
            'gen_ai.conversation.id': turn.sessionId,
            'gen_ai.request.model': turn.modelId,
          },
          links,
        },
        parent,
      );
      turns.get(turn.sessionId)?.span.end();
      // Not sampled (or the API's no-op tracer): nothing of the turn is recorded, nothing paid.
      if (!span.isRecording()) {
        turns.delete(turn.sessionId);
        return;
      }
      turns.set(turn.sessionId, new TurnSpans(turn.turnId, settings, span, parent));
      return formatTraceparent(span.spanContext()) ?? undefined;
    },
    event(event: AgentEvent) {
      const turn = turns.get(event.sessionId);
      if (turn === undefined || event.turnId !== turn.turnId) return;
      if (turn.event(event)) turns.delete(event.sessionId);
    },
    request(seen: WatchedRequest) {
      const turn = turns.get(seen.sessionId);
      if (turn !== undefined && seen.turnId === turn.turnId) return turn.request(seen);
      if (seen.turnId !== null) return;
      // Outside a turn (memory extraction as the session ends): under whatever is active.
      const { span, watch } = chatSpan(settings, seen, context.active(), null, null);
      if (!span.isRecording()) return;
      return watch;
    },
  };

  return {
    id: 'otel',
    displayName: 'OpenTelemetry',
    description: 'Records traces of the turns (no effect on answers).',
    apply(ctx) {
      ctx.watch(watcher);
      ctx.tap('before_compact', ({ sessionId, turnId }) => {
        const turn = turns.get(sessionId);
        if (turn !== undefined && turn.turnId === turnId) turn.compactionStarted();
      });
    },
  };
}

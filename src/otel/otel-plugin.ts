/**
 * `otelPlugin`: OpenTelemetry spans of an agent's turns, following the GenAI semantic
 * conventions. It watches the sessions (it changes nothing they do) and keeps the spans of each
 * session's turn in flight.
 * @module
 */
import { context, SpanKind, trace, type Link, type SpanContext, type Tracer } from '@opentelemetry/api';
import type { Plugin, RuntimeWatcher, WatchedSession } from '../ports/plugin.js';
import type { AgentEvent, SessionEvent } from '../types.js';
import { chatSpan, TurnSpans, type SpanSettings } from './turn-spans.js';
import { formatTraceparent, parseTraceparent } from './traceparent.js';
import { watchedProvider } from './watched-provider.js';

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
  /** The sessions open now, each with its turn in flight while it is traced. */
  const sessions = new Map<string, TracedSession>();

  /** A turn starts (its `turn_start` hook runs in the context of whoever started it). */
  const turnStarted = (session: TracedSession, turnId: string) => {
    const parent = context.active();
    const continued = session.resumed === turnId;
    session.resumed = null;
    const original = continued ? storedTrace(session.watched.stored, turnId) : null;
    const links: Link[] = original ? [{ context: original }] : [];
    const span = settings.tracer.startSpan(
      `invoke_agent ${agentName}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': agentName,
          'gen_ai.conversation.id': session.watched.id,
          'gen_ai.request.model': session.watched.modelId,
        },
        links,
      },
      parent,
    );
    session.turn?.span.end();
    session.turn = null;
    // Not sampled (or the API's no-op tracer): nothing of the turn is recorded, nothing paid.
    if (!span.isRecording()) return;
    session.turn = new TurnSpans(turnId, settings, span, parent);
    const traceparent = formatTraceparent(span.spanContext());
    // The first start's span is what every continuation links to.
    if (!continued && traceparent !== null) session.watched.record(TURN_TRACE_KEY, { turnId, traceparent });
  };

  const watcher: RuntimeWatcher = (watched) => {
    const session: TracedSession = { watched, turn: null, resumed: null };
    sessions.set(watched.id, session);
    watched.events.subscribe({
      next: (event) => guarded(() => onEvent(session, event)),
      complete: () => {
        if (sessions.get(watched.id) === session) sessions.delete(watched.id);
      },
    });
    return (provider) =>
      watchedProvider(provider, (request) => {
        const { turn } = session;
        if (turn !== null) return turn.request(request, provider);
        // Outside a turn (memory extraction as the session ends): under whatever is active.
        const { span, watch } = chatSpan(settings, request, provider, context.active(), null, null);
        return span.isRecording() ? watch : null;
      });
  };

  return {
    id: 'otel',
    displayName: 'OpenTelemetry',
    description: 'Records traces of the turns (no effect on answers).',
    apply(ctx) {
      ctx.watch(watcher);
      ctx.tap('turn_start', ({ sessionId, turnId }) => {
        const session = sessions.get(sessionId);
        if (session && turnId !== null) guarded(() => turnStarted(session, turnId));
      });
      ctx.tap('before_compact', ({ sessionId, turnId }) => {
        const turn = sessions.get(sessionId)?.turn;
        if (turn && turn.turnId === turnId) guarded(() => turn.compactionStarted());
      });
    },
  };
}

/** The `metadata` key of where a turn's first start is traced: `{ turnId, traceparent }`. */
const TURN_TRACE_KEY = 'turn_trace';

/** One session the plugin watches. */
interface TracedSession {
  watched: WatchedSession;
  turn: TurnSpans | null;
  /** The turn whose `turn_resumed` came: its `turn_start` starts a continuation. */
  resumed: string | null;
}

function onEvent(session: TracedSession, event: AgentEvent): void {
  if (event.payload.type === 'turn_resumed') session.resumed = event.turnId;
  const { turn } = session;
  if (turn === null || event.turnId !== turn.turnId) return;
  if (turn.event(event)) session.turn = null;
}

/** The span context stored for `turnId` when it first started (`turn_trace`), if any. */
function storedTrace(stored: readonly SessionEvent[], turnId: string): SpanContext | null {
  for (const { payload } of stored) {
    if (payload.type !== 'metadata' || payload.key !== TURN_TRACE_KEY) continue;
    const value = payload.value as { turnId?: unknown; traceparent?: unknown } | null;
    if (value?.turnId === turnId && typeof value.traceparent === 'string')
      return parseTraceparent(value.traceparent);
  }
  return null;
}

/** Runs `call`; a failure of the plugin's own never reaches the session. */
function guarded(call: () => void): void {
  try {
    call();
  } catch {
    // Tracing is best effort: a turn goes on untraced rather than failing.
  }
}

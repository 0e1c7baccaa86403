/**
 * The spans of one turn: `invoke_agent` and, under it, `chat`, `execute_tool`, `tool_approval`
 * and `compact`, driven by the session's events and model requests. Whatever is still open when
 * the turn ends is ended with it, so nothing outlives its turn.
 * @module
 */
import {
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { ModelProvider } from '../ports/model-provider.js';
import type { AgentEvent, AgentEventPayload, ChatRequest } from '../types.js';
import type { RequestWatch } from './watched-provider.js';
import { errorType, failureMessage, providerName, usageAttributes } from './attributes.js';
import { asAttribute, outputContent, requestContent } from './content.js';

/** What every span of the plugin is made with. */
export interface SpanSettings {
  tracer: Tracer;
  recordContent: boolean;
}

/** A `chat` span whose attempt failed: ended by a retry's next attempt, or with its failure. */
interface FailedChat {
  span: Span;
  error: string;
  at: number;
  /** A `retry_scheduled` came: the next turn request is its next attempt. */
  retrying: boolean;
}

/**
 * Starts a `chat` span for `request` under `parent` and returns the watch that fills and ends it.
 * `onFailure` takes the span of an attempt that failed (a turn's: it may be retried); without
 * it, the span ends with the failure.
 */
export function chatSpan(
  settings: SpanSettings,
  request: ChatRequest,
  provider: ModelProvider,
  parent: Context,
  reuse: Span | null,
  onFailure: ((span: Span, error: string) => void) | null,
): { span: Span; watch: RequestWatch } {
  const span =
    reuse ??
    settings.tracer.startSpan(
      `chat ${request.model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': providerName(provider),
          'gen_ai.request.model': request.model,
          ...(request.maxOutputTokens != null && { 'gen_ai.request.max_tokens': request.maxOutputTokens }),
        },
      },
      parent,
    );
  if (settings.recordContent) span.setAttributes(requestContent(request));
  let text = '';
  const calls: { callId: string; toolName: string; arguments: string }[] = [];
  let finishReason: string | null = null;
  const watch: RequestWatch = {
    event(event) {
      switch (event.type) {
        case 'text_delta':
          if (settings.recordContent) text += event.text;
          break;
        case 'tool_call':
          if (settings.recordContent) calls.push(event);
          break;
        case 'usage':
          span.setAttributes(usageAttributes(event.usage));
          break;
        case 'done':
          finishReason = event.finishReason;
          span.setAttributes({
            'gen_ai.response.finish_reasons': [event.finishReason],
            ...(event.responseId !== undefined && { 'gen_ai.response.id': event.responseId }),
            ...(event.responseModel !== undefined && { 'gen_ai.response.model': event.responseModel }),
          });
          break;
      }
    },
    end(error) {
      if (finishReason !== null && error === null) {
        if (settings.recordContent)
          span.setAttribute('gen_ai.output.messages', outputContent(text, calls, finishReason));
        span.end();
        return;
      }
      // No finish: thrown, stalled or stopped. A cancel ends the span with its turn.
      const type = error === null ? 'PROVIDER_ERROR' : errorType(error);
      if (onFailure) onFailure(span, type);
      else endFailed(span, type);
    },
  };
  return { span, watch };
}

function endFailed(span: Span, type: string, at?: number): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(at);
}

/** The spans of one turn in flight. */
export class TurnSpans {
  readonly span: Span;
  readonly context: Context;
  #inputTokens = 0;
  #outputTokens = 0;
  #failed: FailedChat | null = null;
  #compact: Span | null = null;
  readonly #tools = new Map<string, Span>();
  readonly #approvals = new Map<string, Span>();

  constructor(
    readonly turnId: string,
    private readonly settings: SpanSettings,
    span: Span,
    parent: Context,
  ) {
    this.span = span;
    this.context = trace.setSpan(parent, span);
  }

  /** A model request of this turn starts: its `chat` span (a retry goes on in the failed one). */
  request(request: ChatRequest, provider: ModelProvider): RequestWatch {
    const failed = this.#failed;
    this.#failed = null;
    let reuse: Span | null = null;
    if (failed && failed.retrying && request.purpose === 'turn') reuse = failed.span;
    else if (failed) endFailed(failed.span, failed.error, failed.at);
    // A turn request after a compaction that never reported its end (nothing to summarize).
    if (request.purpose === 'turn') this.#endCompact();
    const parent =
      this.#compact && request.purpose === 'compaction'
        ? trace.setSpan(this.context, this.#compact)
        : this.context;
    const onFailure =
      request.purpose === 'turn'
        ? (span: Span, error: string) => {
            this.#failed = { span, error, at: Date.now(), retrying: false };
          }
        : null;
    return chatSpan(this.settings, request, provider, parent, reuse, onFailure).watch;
  }

  /** A summary compaction starts. */
  compactionStarted(): void {
    this.#endCompact();
    this.#compact = this.#child('compact', { 'gen_ai.operation.name': 'compact' });
  }

  /** Takes one event of the turn; returns `true` when it was the turn's terminal event. */
  event(event: AgentEvent): boolean {
    const payload = event.payload;
    switch (payload.type) {
      case 'usage':
        this.#inputTokens += payload.usage.inputTokens;
        this.#outputTokens += payload.usage.outputTokens;
        return false;
      case 'tool_call_start':
        this.#tools.set(
          payload.callId,
          this.#child(`execute_tool ${payload.toolName}`, {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': payload.toolName,
            'gen_ai.tool.call.id': payload.callId,
            'gen_ai.tool.type': 'function',
            ...(this.settings.recordContent && {
              'gen_ai.tool.call.arguments': asAttribute(payload.arguments),
            }),
          }),
        );
        return false;
      case 'tool_call_end': {
        const span = this.#tools.get(payload.callId);
        if (!span) return false;
        this.#tools.delete(payload.callId);
        if (this.settings.recordContent) span.setAttribute('gen_ai.tool.call.result', payload.output.content);
        if (!payload.success) endFailed(span, 'TOOL_EXECUTION_ERROR');
        else span.end();
        return false;
      }
      case 'approval_requested':
        this.#approvals.get(payload.callId)?.end();
        this.#approvals.set(
          payload.callId,
          this.#child(`tool_approval ${payload.toolName}`, {
            'gen_ai.operation.name': 'tool_approval',
            'gen_ai.tool.name': payload.toolName,
            'gen_ai.tool.call.id': payload.callId,
          }),
        );
        return false;
      case 'approval_resolved': {
        const span = this.#approvals.get(payload.callId);
        if (!span) return false;
        this.#approvals.delete(payload.callId);
        span.setAttributes({
          'youyou.approval.approved': payload.approved,
          'youyou.approval.by': payload.by,
        });
        span.end();
        return false;
      }
      case 'context_compacted':
        if (payload.strategy === 'micro' && this.#compact === null) {
          const span = this.#child('compact', { 'gen_ai.operation.name': 'compact' });
          span.setAttributes(compactedAttributes(payload));
          span.end();
        } else if (payload.strategy === 'summary') {
          this.#compact?.setAttributes(compactedAttributes(payload));
          this.#endCompact();
        }
        return false;
      case 'retry_scheduled':
        if (this.#failed) {
          this.#failed.retrying = true;
          this.#failed.span.addEvent('retry', {
            'retry.attempt': payload.attempt,
            'retry.delay_ms': payload.delayMs,
            'error.type': payload.error.code,
          });
        }
        return false;
      case 'error':
        if (!payload.fatal) {
          if (payload.error.code === 'COMPACT_ERROR' && this.#compact) {
            endFailed(this.#compact, 'COMPACT_ERROR');
            this.#compact = null;
          }
          return false;
        }
        this.#end('failed', payload.error);
        return true;
      case 'turn_complete':
        this.#end('completed', null);
        return true;
      case 'turn_cancelled':
        this.#end('cancelled', null);
        return true;
      default:
        return false;
    }
  }

  #child(name: string, attributes: Attributes): Span {
    return this.settings.tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, this.context);
  }

  #endCompact(): void {
    this.#compact?.end();
    this.#compact = null;
  }

  /** Ends the turn's span and whatever is still open under it. */
  #end(status: 'completed' | 'cancelled' | 'failed', error: { code: string; message: string } | null): void {
    const failed = this.#failed;
    if (failed) {
      // A cancel stopped the request; otherwise its failure is the turn's.
      if (status === 'cancelled') failed.span.end();
      else endFailed(failed.span, error?.code ?? failed.error, failed.at);
    }
    this.#endCompact();
    for (const span of this.#tools.values()) span.end();
    // An approval nobody can decide any more ends here, never later.
    for (const span of this.#approvals.values()) span.end();
    const { span } = this;
    span.setAttributes({
      ...usageAttributes({ inputTokens: this.#inputTokens, outputTokens: this.#outputTokens }),
      'youyou.turn.status': status,
    });
    if (status === 'failed' && error) {
      span.setAttribute('error.type', error.code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: failureMessage(error) });
    }
    span.end();
  }
}

function compactedAttributes(payload: Extract<AgentEventPayload, { type: 'context_compacted' }>): Attributes {
  return {
    'youyou.compaction.strategy': payload.strategy,
    'youyou.compaction.tokens_before': payload.tokensBefore,
    'youyou.compaction.tokens_after': payload.tokensAfter,
  };
}

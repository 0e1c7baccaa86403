/**
 * `streamModel`: one model request of a turn. `pre_request` may replace or block the request;
 * the provider's stream goes straight to the event stream (one emit per delta, no machine
 * transition) while the response accumulates in the turn's draft; the finished response is
 * appended to the history — the assistant message always, even with tool calls — then one
 * `usage` event and `post_request`. A failed attempt resolves `{ ok: false }` saying whether
 * output was already streamed: a response that showed output is never retried silently.
 * @module
 */
import type { StreamInput, StreamOutput } from '../../../machines/turn.types.js';
import type { Clock } from '../../clock.js';
import { AgentError, toAgentError } from '../../errors.js';
import * as Errors from '../../error-constructors.js';
import { generateId } from '../../ids.js';
import type { ModelProvider } from '../../ports/model-provider.js';
import { responseCost } from '../../providers/cost.js';
import type { TurnPrompt } from '../../prompt/session-prompt.js';
import { toolCallArguments } from '../../tools/parse-arguments.js';
import * as z from 'zod/mini';
import { ProviderItemsSchema } from '../../types.js';
import type {
  AgentEventPayload,
  ChatEvent,
  ChatRequest,
  Message,
  ModelInfo,
  ProviderItems,
  TokenUsage,
  ToolCallRequest,
  ToolSpec,
} from '../../types.js';
import type { PartialOutput } from '../../output/partial-output.js';
import type { HookCaller } from '../session-scope.js';
import type { ResponseDraft } from '../turn-run.js';
import { startIdleWatchdog } from '../idle-watchdog.js';
import { readTokenUsage } from './read-token-usage.js';
import { readsRequestOnly, requestMessages } from './request-messages.js';

/** What `streamModel` uses. */
export interface StreamScope {
  provider: ModelProvider;
  model: ModelInfo;
  prompt: Pick<TurnPrompt, 'build'>;
  history: { readonly messages: readonly Message[]; recordUsage(usage: TokenUsage): void };
  append(message: Message): void;
  tools: readonly ToolSpec[];
  draft: ResponseDraft;
  /** Checkpoints the streamed text (throttled); `null` when the storage keeps no drafts. */
  checkpointDraft: ((text: string) => void) | null;
  /** Removes the checkpointed text once the response is recorded as a message. */
  clearDraft(): void;
  /** Where the recorded calls wait, with their arguments, for the tool batch. */
  pendingCalls: Map<string, ToolCallRequest>;
  /** No event from the provider for this long (before the first one too) fails the attempt. */
  idleTimeoutMs: number;
  hook: HookCaller;
  emit(payload: AgentEventPayload): void;
  clock: Clock;
  /** Takes streamed tool-call arguments when the turn asks for structured output; else `null`. */
  partialOutput: Pick<PartialOutput, 'reset' | 'add'> | null;
}

/** Runs the `requesting` step once (one attempt). */
export async function streamModel(
  scope: StreamScope,
  input: StreamInput,
  signal: AbortSignal,
): Promise<StreamOutput> {
  const initial: ChatRequest = {
    model: scope.model.id,
    systemPrompt: await scope.prompt.build(input.dynamicSections),
    // Nothing a hook or the provider does to the request may reach the history: a deep copy,
    // unless neither can write to it.
    messages: requestMessages(
      scope.history.messages,
      readsRequestOnly(scope.provider) && !scope.hook.has('pre_request'),
    ),
    tools: [...scope.tools],
    purpose: 'turn',
  };
  if (input.maxOutputTokens != null) initial.maxOutputTokens = input.maxOutputTokens;
  const pre = await scope.hook('pre_request', { request: initial, attempt: input.attempt });
  if (pre.aborted !== null) return { ok: false, error: Errors.requestBlocked(pre.aborted), hadOutput: false };
  // A step stopped while its hook ran starts no new work: no request with an aborted signal.
  if (signal.aborted) return { ok: false, error: Errors.requestCancelled(), hadOutput: false };

  const { draft } = scope;
  draft.clear();
  scope.partialOutput?.reset();
  const toolCalls: ToolCallRequest[] = [];
  let usage: TokenUsage | null = null;
  let cost: number | undefined;
  // The `done` event: the finish reason, and the response's id and model as the provider reported them.
  let done = null as Extract<ChatEvent, { type: 'done' }> | null;
  // The provider's own record of the response; kept only if the response completes.
  let providerItems: ProviderItems | undefined;
  const started = scope.clock.now();
  // Set while the step handles an event: what throws then (other than an invalid event) is the
  // runtime's own bug, labelled at the seam, not the provider's failure.
  let handling = false;

  // The request's own signal: aborted by the step's (a cancel) or by the idle watchdog.
  const request = new AbortController();
  const onAbort = () => request.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let idle: AgentError | null = null;
  let stalled!: () => void;
  // Settles when the watchdog fires: a provider that ignores its signal cannot hold the turn.
  const stall = new Promise<void>((resolve) => (stalled = resolve));
  const watchdog = startIdleWatchdog(scope.clock, scope.idleTimeoutMs, () => {
    idle = Errors.provider(`provider '${scope.provider.id}' sent no data for ${scope.idleTimeoutMs}ms`, {
      retryable: true,
    });
    request.abort(idle);
    stalled();
  });

  const read = async () => {
    for await (const event of scope.provider.chat(
      pre.data.request,
      request.signal,
    ) as AsyncIterable<ChatEvent>) {
      // Once cancelled (or stalled), nothing more of this response reaches the stream.
      if (request.signal.aborted) break;
      watchdog.touch();
      handling = true;
      switch (event?.type) {
        case 'text_delta':
        case 'reasoning_delta':
          if (typeof event.text !== 'string') throw invalidEvent(scope.provider, event);
          if (event.text === '') break;
          draft.add(event.type, event.text);
          scope.emit({ type: event.type, text: event.text });
          if (event.type === 'text_delta') scope.checkpointDraft?.(draft.text);
          break;
        case 'tool_call':
          if (typeof event.toolName !== 'string' || typeof event.arguments !== 'string')
            throw invalidEvent(scope.provider, event);
          toolCalls.push({
            callId: typeof event.callId === 'string' && event.callId ? event.callId : `call_${generateId()}`,
            toolName: event.toolName,
            arguments: event.arguments,
          });
          break;
        case 'tool_call_delta':
          if (
            typeof event.index !== 'number' ||
            typeof event.argumentsDelta !== 'string' ||
            (event.toolName !== undefined && typeof event.toolName !== 'string')
          )
            throw invalidEvent(scope.provider, event);
          scope.partialOutput?.add(event);
          break;
        case 'usage': {
          const read = readTokenUsage(event.usage);
          if (read === null) throw invalidEvent(scope.provider, event);
          usage = read;
          cost = typeof event.cost === 'number' ? event.cost : undefined;
          break;
        }
        case 'response_items': {
          const { type: _, ...record } = event;
          const parsed = z.safeParse(ProviderItemsSchema, record);
          if (!parsed.success) throw invalidEvent(scope.provider, event);
          providerItems = parsed.data;
          break;
        }
        case 'done':
          if (typeof event.finishReason !== 'string') throw invalidEvent(scope.provider, event);
          done = event;
          break;
        default:
          throw invalidEvent(scope.provider, event);
      }
      handling = false;
    }
  };

  try {
    const reading = read();
    // After a stall the read may still settle (or never): its outcome no longer matters.
    reading.catch(() => {});
    await Promise.race([reading, stall]);
  } catch (error) {
    if (handling && !AgentError.isInstance(error)) throw error;
    // Whatever a provider throws is the provider's failure.
    const failure = AgentError.isInstance(error)
      ? error
      : toAgentError(error, 'PROVIDER_ERROR', { source: 'provider' });
    return { ok: false, error: idle ?? failure, hadOutput: draft.streamed };
  } finally {
    watchdog.stop();
    signal.removeEventListener('abort', onAbort);
  }
  if (idle) return { ok: false, error: idle, hadOutput: draft.streamed };
  if (signal.aborted) return { ok: false, error: Errors.requestCancelled(), hadOutput: draft.streamed };
  if (done === null) {
    const error = Errors.provider(
      `provider '${scope.provider.id}' ended the stream without a finish reason`,
      {
        retryable: true,
      },
    );
    return { ok: false, error, hadOutput: draft.streamed };
  }

  // The response is complete: it joins the history (and storage), the draft is spent.
  scope.append({
    type: 'assistant',
    content: draft.text ? [{ type: 'text', text: draft.text }] : [],
    status: 'complete',
    ...(providerItems && { providerItems }),
  });
  scope.pendingCalls.clear();
  for (const call of toolCalls) {
    scope.pendingCalls.set(call.callId, call);
    scope.append({
      type: 'tool_call',
      callId: call.callId,
      toolName: call.toolName,
      arguments: toolCallArguments(call.arguments),
    });
  }
  draft.clear();
  scope.clearDraft();

  if (usage) {
    scope.history.recordUsage(usage);
    const reported = responseCost(usage, cost, scope.model.pricing);
    scope.emit({ type: 'usage', usage, ...(reported !== undefined && { cost: reported }) });
  }
  if (signal.aborted) return { ok: false, error: Errors.requestCancelled(), hadOutput: false };
  await scope.hook('post_request', {
    usage,
    finishReason: done.finishReason,
    durationMs: scope.clock.now() - started,
    attempt: input.attempt,
    responseId: done.responseId,
    responseModel: done.responseModel,
  });
  return {
    ok: true,
    toolCalls: toolCalls.map(({ callId, toolName }) => ({ callId, toolName })),
    finishReason: done.finishReason,
    usage,
  };
}

function invalidEvent(provider: ModelProvider, event: unknown): AgentError {
  let shown: string;
  try {
    shown = JSON.stringify(event)?.slice(0, 200) ?? String(event);
  } catch {
    shown = String(event);
  }
  return Errors.provider(`provider '${provider.id}' sent an invalid stream event: ${shown}`);
}

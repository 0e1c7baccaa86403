/**
 * `streamModel`: one model request of a turn. `pre_request` may replace or block the request;
 * the provider's stream goes straight to the event stream (one `Subject.next` per delta, no
 * machine transition) while the response accumulates in the turn's draft; the finished response
 * is appended to the history — the assistant message always, even with tool calls — then one
 * `usage` event and `post_request`. Failures are thrown as a `StreamFailure` saying whether
 * output was already streamed (then the turn fails instead of retrying: DESIGN.md §4.1).
 * @module
 */
import * as z from 'zod/mini';
import type { StreamFailure, StreamOutput } from '../../../machines/turn.machine.js';
import { AgentError, Errors, toAgentError } from '../../errors.js';
import { generateId } from '../../ids.js';
import { costOf } from '../../providers/cost.js';
import type { SessionRuntime, TurnState } from '../session-runtime.js';
import { toolCallArguments } from '../../tools/parse-arguments.js';
import type { ToolCallRequest } from '../../tools/tool-dispatcher.js';
import {
  TokenUsageSchema,
  type ChatEvent,
  type ChatRequest,
  type Message,
  type TokenUsage,
} from '../../types.js';

function failure(error: AgentError, hadOutput: boolean): StreamFailure {
  return { error, hadOutput };
}

function invalidEvent(rt: SessionRuntime, event: unknown): AgentError {
  let shown: string;
  try {
    shown = JSON.stringify(event)?.slice(0, 200) ?? String(event);
  } catch {
    shown = String(event);
  }
  return Errors.provider(`provider '${rt.provider.id}' sent an invalid stream event: ${shown}`);
}

/** Runs the `requesting` step once (one attempt). */
export async function streamModel(
  rt: SessionRuntime,
  turn: TurnState,
  attempt: number,
  signal: AbortSignal,
): Promise<StreamOutput> {
  const initial: ChatRequest = {
    model: rt.modelId,
    systemPrompt: turn.systemPrompt,
    // A copy: hooks and providers get the request, and nothing they do may reach the history.
    messages: structuredClone(rt.context.messages) as Message[],
    tools: [...rt.services.tools.specs],
    purpose: 'turn',
  };
  const pre = await rt.hook('pre_request', turn.id, { request: initial, attempt });
  if (pre.aborted !== null) throw failure(Errors.requestBlocked(pre.aborted), false);
  const request = pre.data.request;

  turn.draft = { text: '', reasoning: '', streamed: false };
  const draft = turn.draft;
  const toolCalls: ToolCallRequest[] = [];
  let usage: TokenUsage | null = null;
  let cost: number | undefined;
  let finishReason: string | null = null;
  const started = Date.now();

  try {
    for await (const event of rt.provider.chat(request, signal) as AsyncIterable<ChatEvent>) {
      // Once cancelled, nothing more of this response reaches the stream.
      if (signal.aborted) break;
      switch (event?.type) {
        case 'text_delta':
        case 'reasoning_delta':
          if (typeof event.text !== 'string') throw invalidEvent(rt, event);
          if (event.text === '') break;
          if (event.type === 'text_delta') draft.text += event.text;
          else draft.reasoning += event.text;
          draft.streamed = true;
          rt.hub.emit(turn.id, { type: event.type, text: event.text });
          break;
        case 'tool_call':
          if (typeof event.toolName !== 'string' || typeof event.arguments !== 'string')
            throw invalidEvent(rt, event);
          toolCalls.push({
            callId: typeof event.callId === 'string' && event.callId ? event.callId : `call_${generateId()}`,
            toolName: event.toolName,
            arguments: event.arguments,
          });
          break;
        case 'usage': {
          const parsed = z.safeParse(TokenUsageSchema, event.usage);
          if (!parsed.success) throw invalidEvent(rt, event);
          usage = parsed.data;
          cost = typeof event.cost === 'number' ? event.cost : undefined;
          break;
        }
        case 'done':
          if (typeof event.finishReason !== 'string') throw invalidEvent(rt, event);
          finishReason = event.finishReason;
          break;
        default:
          throw invalidEvent(rt, event);
      }
    }
  } catch (error) {
    const agentError = AgentError.isInstance(error)
      ? error
      : toAgentError(error, 'PROVIDER_ERROR', { source: 'provider' });
    throw failure(agentError, draft.streamed);
  }
  if (signal.aborted) throw failure(Errors.requestCancelled(), draft.streamed);
  if (finishReason === null) {
    throw failure(
      Errors.provider(`provider '${rt.provider.id}' ended the stream without a finish reason`, {
        retryable: true,
      }),
      draft.streamed,
    );
  }

  // The response is complete: it joins the history (and storage), the draft is spent.
  rt.append({
    type: 'assistant',
    content: draft.text ? [{ type: 'text', text: draft.text }] : [],
    status: 'complete',
  });
  for (const call of toolCalls) {
    rt.append({
      type: 'tool_call',
      callId: call.callId,
      toolName: call.toolName,
      arguments: toolCallArguments(call.arguments),
    });
  }
  turn.draft = { text: '', reasoning: '', streamed: false };

  if (usage) {
    rt.context.recordUsage(usage);
    const pricing = rt.model.pricing;
    const reported = cost ?? (pricing ? costOf(usage, pricing) : undefined);
    rt.hub.emit(turn.id, { type: 'usage', usage, ...(reported !== undefined && { cost: reported }) });
  }
  await rt.hook('post_request', turn.id, {
    usage,
    finishReason,
    durationMs: Date.now() - started,
    attempt,
  });
  return { toolCalls, finishReason, usage };
}

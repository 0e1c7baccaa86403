/**
 * The offline model: a `ModelProvider` written for this demo (not part of the library) that
 * streams the replies of `planReply` word by word, so the demo works with no endpoint and no
 * key. The UI labels it as scripted.
 * @module
 */
import {
  AgentError,
  type ChatEvent,
  type ChatRequest,
  type ModelInfo,
  type ModelProvider,
} from 'youyou-agent';
import { planReply } from './offline-replies.js';

/** The offline model's id (sessions store it, so resuming one finds this provider again). */
export const OFFLINE_MODEL_ID = 'scripted-offline';

/** Pretend prices, so the demo shows a cost per turn. */
const OFFLINE_MODEL: ModelInfo = {
  id: OFFLINE_MODEL_ID,
  displayName: 'Scripted offline model',
  contextWindow: 16_000,
  capabilities: { toolUse: true, vision: false, streaming: true },
  pricing: { inputPerMillion: 0.5, outputPerMillion: 1.5 },
};

const DEFAULT_PACE_MS = 18;

/** Numbers the calls, so every call id of a page is unique. */
let callCount = 0;

export class OfflineModelProvider implements ModelProvider {
  readonly id = 'offline-demo';
  readonly models: readonly ModelInfo[] = [OFFLINE_MODEL];

  async *chat(request: ChatRequest, signal: AbortSignal): AsyncGenerator<ChatEvent, void, undefined> {
    const reply = planReply(request);
    const pace = reply.pace ?? DEFAULT_PACE_MS;
    for (const word of words(reply.reasoning)) {
      await pause(pace, signal);
      yield { type: 'reasoning_delta', text: word };
    }
    for (const word of words(reply.text)) {
      await pause(pace, signal);
      yield { type: 'text_delta', text: word };
    }
    const calls = reply.toolCalls ?? [];
    for (const [index, call] of calls.entries()) {
      const callId = `call_${Date.now().toString(36)}_${(callCount += 1)}`;
      const text = JSON.stringify(call.arguments);
      if (reply.streamArguments) {
        // The arguments as a model writes them: a few characters at a time.
        for (const [i, argumentsDelta] of (text.match(/[\s\S]{1,6}/g) ?? []).entries()) {
          await pause(pace, signal);
          yield i === 0
            ? { type: 'tool_call_delta', index, callId, toolName: call.name, argumentsDelta }
            : { type: 'tool_call_delta', index, argumentsDelta };
        }
      }
      await pause(pace, signal);
      yield { type: 'tool_call', callId, toolName: call.name, arguments: text };
    }
    const inputTokens = Math.ceil(JSON.stringify(request).length / 4);
    const outputTokens = Math.ceil(
      ((reply.reasoning ?? '').length + (reply.text ?? '').length + JSON.stringify(calls).length) / 4,
    );
    yield {
      type: 'usage',
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    };
    yield { type: 'done', finishReason: calls.length > 0 ? 'tool_calls' : 'stop' };
  }
}

/** `text` in pieces of one word and the space after it. */
function words(text: string | undefined): string[] {
  return text ? (text.match(/\S+\s*|\s+/g) ?? []) : [];
}

/** Waits `ms`, or throws `REQUEST_CANCELLED` as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const cancelled = () =>
      new AgentError('REQUEST_CANCELLED', 'the request was cancelled', { source: 'provider' });
    if (signal.aborted) return reject(cancelled());
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

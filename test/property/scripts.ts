/**
 * Turns a {@link ResponseSpec} into the items the `ScriptedModelProvider` streams, and says what
 * the runtime must make of it (whether it showed output, whether it may be retried).
 * @module
 */
import { AgentError, type ChatEvent } from '../../src/index.js';
import type { ScriptItem } from '../../src/testing/index.js';
import type { CallSpec, ResponseSpec } from './scenario.js';

/** The plain answer a turn gets once its scripted responses are used up. */
export const FALLBACK: ResponseSpec = {
  reasoning: null,
  text: ['All done.'],
  calls: [],
  usage: { inputTokens: 1, outputTokens: 1 },
  stall: null,
  ending: { kind: 'done', finishReason: 'stop' },
};

/** What the script needs from the run. */
export interface ScriptContext {
  /** A fresh call id. */
  newCallId(): string;
  /** The id of the turn's previous call, if any. */
  lastCallId(): string | null;
  /** A `wait` the harness watches and releases. */
  stall(): Promise<unknown>;
  /** The server wait a retryable failure asks for. */
  retryAfterMs: number;
}

/** The stream items of one response. */
export function responseItems(spec: ResponseSpec, ctx: ScriptContext): ScriptItem[] {
  const content = contentItems(spec, ctx);
  const { ending } = spec;
  let items: ScriptItem[];
  switch (ending.kind) {
    case 'done':
      items = [...content, { type: 'done', finishReason: ending.finishReason }];
      break;
    case 'no_finish':
      items = content;
      break;
    case 'throw':
      items = [...content.slice(0, ending.at), { type: 'throw', error: failure(ending.error, ctx) }];
      break;
    case 'malformed':
      items = [...content.slice(0, ending.at), { type: 'text_delta', text: 42 } as unknown as ChatEvent];
      break;
  }
  if (spec.stall) {
    const pause: ScriptItem =
      spec.stall.kind === 'wait' ? { type: 'wait', until: ctx.stall() } : { type: 'delay', ms: 1 };
    items.splice(Math.min(spec.stall.at, items.length), 0, pause);
  }
  return items;
}

/** Reasoning, text, calls and usage: the items before the ending. */
function contentItems(spec: ResponseSpec, ctx: ScriptContext): ScriptItem[] {
  const items: ScriptItem[] = [];
  if (spec.reasoning !== null) items.push({ type: 'reasoning_delta', text: spec.reasoning });
  for (const text of spec.text) items.push({ type: 'text_delta', text });
  for (const call of spec.calls) {
    const callId = (call.repeatId && ctx.lastCallId()) || ctx.newCallId();
    items.push({ type: 'tool_call', callId, toolName: call.tool, arguments: argumentsText(call) });
  }
  if (spec.usage) {
    const { inputTokens, outputTokens } = spec.usage;
    items.push({
      type: 'usage',
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    });
  }
  return items;
}

/** The arguments text of a call: valid JSON, JSON the schema refuses, or not JSON at all. */
export function argumentsText(call: CallSpec): string {
  switch (call.args) {
    case 'valid':
      return JSON.stringify({ text: 'note', mode: call.mode });
    case 'wrong_schema':
      return JSON.stringify({ text: 5, mode: call.mode });
    case 'invalid_json':
      return '{"text": "note", "mode": ';
  }
}

function failure(kind: 'retryable' | 'fatal' | 'foreign', ctx: ScriptContext): unknown {
  if (kind === 'foreign') return new Error('the model library broke');
  return new AgentError('PROVIDER_ERROR', `scripted ${kind} failure`, {
    retryable: kind === 'retryable',
    ...(kind === 'retryable' && { retryAfterMs: ctx.retryAfterMs }),
  });
}

/** How one attempt with this response ends, as the runtime must see it. */
export type AttemptOutcome =
  { ok: true; toolCalls: number } | { ok: false; retryable: boolean; hadOutput: boolean };

/** The outcome of streaming `spec` to its end, with no cancel. */
export function attemptOutcome(spec: ResponseSpec): AttemptOutcome {
  const streamed = (count: number) => {
    const deltas = [...(spec.reasoning === null ? [] : [spec.reasoning]), ...spec.text];
    return deltas.slice(0, count).some((text) => text !== '');
  };
  const all = (spec.reasoning === null ? 0 : 1) + spec.text.length;
  const { ending } = spec;
  switch (ending.kind) {
    case 'done':
      return { ok: true, toolCalls: spec.calls.length };
    case 'no_finish':
      return { ok: false, retryable: true, hadOutput: streamed(all) };
    case 'throw':
      return { ok: false, retryable: ending.error === 'retryable', hadOutput: streamed(ending.at) };
    case 'malformed':
      return { ok: false, retryable: false, hadOutput: streamed(ending.at) };
  }
}

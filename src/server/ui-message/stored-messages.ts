/**
 * A session's stored events as the `UIMessage`s `useChat` holds: for each turn, the user's message
 * and one assistant message, built as the live stream builds it (same ids, a `step-start` per
 * model response, the same part order), so a page that reloads reads what it had.
 * @module
 */
import * as z from 'zod/mini';
import {
  APPROVAL_DECISION_KEY,
  APPROVAL_REQUESTED_KEY,
  TURN_OUTPUT_KEY,
  TURN_STARTED_KEY,
  USAGE_KEY,
} from '../../persistence/metadata-keys.js';
import { recordOf } from '../../persistence/metadata-records.js';
import { storedUsageTotals } from '../../persistence/usage-records.js';
import type { ContentBlock, SessionEvent } from '../../types.js';
import { FINAL_ANSWER_TOOL } from '../../vocabulary/tools.js';
import type { ChatMessage, ChatMessagePart, ChatToolApproval } from './chunks.js';
import { CHAT_REASONING_KEY } from './reasoning-record.js';

/** The metadata key of the id a `/chat` client gave its user message: `{ turnId, messageId }`. */
export const CHAT_MESSAGE_KEY = 'chat_message';

/** The record of the id a client gave the user message of `turnId`. */
export function chatMessageEvent(turnId: string, messageId: string): SessionEvent {
  return {
    timestamp: new Date().toISOString(),
    payload: { type: 'metadata', key: CHAT_MESSAGE_KEY, value: { turnId, messageId } },
  };
}

/** The id of a user message no `/chat` client named: derived from its turn. */
export function storedUserMessageId(turnId: string): string {
  return `${turnId}-user`;
}

const ChatMessageRecord = /* @__PURE__ */ (() =>
  z.looseObject({ turnId: z.string(), messageId: z.string() }))();
const TurnRecord = /* @__PURE__ */ (() => z.looseObject({ turnId: z.string() }))();
const CallRecord = /* @__PURE__ */ (() => z.looseObject({ callId: z.string() }))();
const DecisionRecord = /* @__PURE__ */ (() =>
  z.looseObject({ callId: z.string(), approved: z.boolean(), reason: z.optional(z.string()) }))();
const ReasoningRecord = /* @__PURE__ */ (() =>
  z.looseObject({ turnId: z.string(), step: z.number(), id: z.string(), text: z.string() }))();
const OutputRecord = /* @__PURE__ */ (() => z.looseObject({ callId: z.string(), output: z.unknown() }))();

interface StoredCall {
  callId: string;
  toolName: string;
  input: unknown;
}

/** What the first pass reads from the metadata records. */
interface Records {
  userIds: Map<string, string>;
  asked: string[];
  decisions: Map<string, { approved: boolean; reason?: string }>;
  results: Map<string, { content: string; isError: boolean }>;
  outputs: Map<string, unknown>;
  usageTurns: Set<string>;
  /** The reasoning parts of each turn's steps, by `turnId` and step index. */
  reasoning: Map<string, { id: string; text: string }[]>;
}

function readRecords(events: readonly SessionEvent[]): Records {
  const records: Records = {
    userIds: new Map(),
    asked: [],
    decisions: new Map(),
    results: new Map(),
    outputs: new Map(),
    usageTurns: new Set(),
    reasoning: new Map(),
  };
  for (const event of events) {
    const { payload } = event;
    if (payload.type === 'tool_result') {
      records.results.set(payload.callId, { content: payload.content, isError: payload.isError });
      continue;
    }
    const named = recordOf(event, CHAT_MESSAGE_KEY, ChatMessageRecord);
    if (named && !records.userIds.has(named.turnId)) records.userIds.set(named.turnId, named.messageId);
    const asked = recordOf(event, APPROVAL_REQUESTED_KEY, CallRecord);
    if (asked) records.asked.push(asked.callId);
    const decision = recordOf(event, APPROVAL_DECISION_KEY, DecisionRecord);
    if (decision)
      records.decisions.set(decision.callId, {
        approved: decision.approved,
        ...(decision.reason !== undefined && { reason: decision.reason }),
      });
    const output = recordOf(event, TURN_OUTPUT_KEY, OutputRecord);
    if (output) records.outputs.set(output.callId, output.output);
    const reasoning = recordOf(event, CHAT_REASONING_KEY, ReasoningRecord);
    if (reasoning) {
      const key = `${reasoning.turnId} ${reasoning.step}`;
      records.reasoning.set(key, [
        ...(records.reasoning.get(key) ?? []),
        { id: reasoning.id, text: reasoning.text },
      ]);
    }
    const usage = recordOf(event, USAGE_KEY, z.looseObject({ turnId: z.nullable(z.string()) }));
    if (usage?.turnId) records.usageTurns.add(usage.turnId);
  }
  return records;
}

/**
 * The `UIMessage`s of a session's stored events.
 * @example
 * const messages = storedChatMessages((await storage.loadSession(id)) ?? []);
 */
export function storedChatMessages(events: readonly SessionEvent[]): ChatMessage[] {
  const records = readRecords(events);
  const messages: ChatMessage[] = [];
  let turnId: string | null = null;
  let assistant: ChatMessage | null = null;
  let calls: StoredCall[] = [];
  let outputCall: string | null = null;
  let step = 0;

  const flushStep = () => {
    if (!assistant) return;
    if (outputCall !== null) {
      assistant.parts.push({ type: 'data-output', data: records.outputs.get(outputCall) });
      outputCall = null;
    }
    // Live, a call's part appears when its approval is asked or it starts: asked calls first.
    const rank = (call: StoredCall) => {
      const asked = records.asked.indexOf(call.callId);
      return asked === -1 ? records.asked.length : asked;
    };
    const ordered = calls.map((call, index) => ({ call, index }));
    ordered.sort((a, b) => rank(a.call) - rank(b.call) || a.index - b.index);
    for (const { call } of ordered) assistant.parts.push(toolPart(call, records));
    calls = [];
  };

  for (const event of events) {
    const { payload } = event;
    const started = recordOf(event, TURN_STARTED_KEY, TurnRecord);
    if (started) {
      flushStep();
      turnId = started.turnId;
      assistant = null;
      step = 0;
      continue;
    }
    if (payload.type === 'user_message' && turnId !== null) {
      flushStep();
      assistant = null;
      messages.push({
        id: records.userIds.get(turnId) ?? storedUserMessageId(turnId),
        role: 'user',
        parts: payload.content.map(userPart),
      });
      continue;
    }
    if (payload.type === 'assistant_message' && turnId !== null) {
      if (!assistant) {
        assistant = { id: turnId, role: 'assistant', parts: [] };
        if (records.usageTurns.has(turnId)) {
          const totals = storedUsageTotals(events, turnId);
          assistant.metadata = { usage: totals.usage, cost: totals.cost };
        }
        messages.push(assistant);
      } else flushStep();
      assistant.parts.push({ type: 'step-start' });
      // Live, a response's reasoning comes before its text.
      for (const part of records.reasoning.get(`${turnId} ${step++}`) ?? [])
        assistant.parts.push({ type: 'reasoning', id: part.id, text: part.text, state: 'done' });
      const text = payload.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      if (text !== '') assistant.parts.push({ type: 'text', text, state: 'done' });
      continue;
    }
    if (payload.type === 'tool_call' && assistant) {
      if (payload.toolName === FINAL_ANSWER_TOOL) {
        if (records.outputs.has(payload.callId)) outputCall = payload.callId;
        continue;
      }
      calls.push({ callId: payload.callId, toolName: payload.toolName, input: payload.arguments });
    }
  }
  flushStep();
  return messages;
}

function userPart(block: ContentBlock): ChatMessagePart {
  if (block.type === 'text') return { type: 'text', text: block.text };
  return { type: 'file', mediaType: block.mediaType, url: `data:${block.mediaType};base64,${block.data}` };
}

function toolPart(call: StoredCall, records: Records): ChatMessagePart {
  const asked = records.asked.includes(call.callId);
  const decision = records.decisions.get(call.callId);
  const result = records.results.get(call.callId);
  const approval: ChatToolApproval | undefined = asked
    ? { id: call.callId, ...(decision && decision) }
    : undefined;
  const base = {
    type: `tool-${call.toolName}` as const,
    toolCallId: call.callId,
    input: call.input,
    ...(approval && { approval }),
  };
  if (result) {
    if (asked && decision && !decision.approved) return { ...base, state: 'output-denied' };
    if (result.isError) return { ...base, state: 'output-error', errorText: result.content };
    return { ...base, state: 'output-available', output: result.content };
  }
  if (asked) return { ...base, state: decision ? 'approval-responded' : 'approval-requested' };
  return { ...base, state: 'input-available' };
}

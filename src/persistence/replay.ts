/**
 * Rebuilding a session from its stored events: the mapping table from
 * `SessionEvent` to `Message`, the interrupted-message note after an incomplete assistant
 * message, the last `context_snapshot` (written after each compaction) as the starting point,
 * and the counters. Pure, so resume can be tested without storage.
 * @module
 */
import * as z from 'zod/mini';
import { MessageSchema, type Message, type SessionConfig, type SessionEvent } from '../types.js';

import { CONTEXT_SNAPSHOT_KEY, MEMORY_CHECKPOINT_KEY, SESSION_CONFIG_KEY } from './metadata-keys.js';

/** The stored form of the session config: the resolved model id is always there. */
const StoredSessionConfigSchema = z.looseObject({
  modelId: z.string(),
  systemPromptOverride: z.optional(z.string()),
});
/** The stored form of the session config. */
export type StoredSessionConfig = SessionConfig & { modelId: string };

/** A stored context snapshot: the history that replaced the one before it. */
export const SnapshotSchema = /* @__PURE__ */ (() => z.array(MessageSchema))();

/** What a session's events say. */
export interface ReplayedSession {
  messages: Message[];
  /** `null` when the events hold no (valid) `session_config` (older data): use the defaults. */
  config: StoredSessionConfig | null;
  /** Turns taken = user messages stored. */
  turnCount: number;
  /** The turn count at the last memory checkpoint; `null` when none is recorded. */
  checkpointTurn: number | null;
}

/** The message for one event, or `null` for metadata. */
export function eventToMessage(event: SessionEvent): Message | null {
  const p = event.payload;
  switch (p.type) {
    case 'user_message':
      return { type: 'user', content: p.content };
    case 'assistant_message':
      return {
        type: 'assistant',
        content: p.content,
        status: p.status,
        ...(p.providerItems && { providerItems: p.providerItems }),
      };
    case 'tool_call':
      return { type: 'tool_call', callId: p.callId, toolName: p.toolName, arguments: p.arguments };
    case 'tool_result':
      return { type: 'tool_result', callId: p.callId, content: p.content, isError: p.isError };
    case 'system_message':
      return { type: 'system', content: p.content };
    case 'metadata':
      return null;
  }
}

/** The event that persists one message. */
export function messageToEvent(message: Message, timestamp: string): SessionEvent {
  switch (message.type) {
    case 'user':
      return { timestamp, payload: { type: 'user_message', content: message.content } };
    case 'assistant':
      return {
        timestamp,
        payload: {
          type: 'assistant_message',
          content: message.content,
          status: message.status,
          ...(message.providerItems && { providerItems: message.providerItems }),
        },
      };
    case 'tool_call':
      return {
        timestamp,
        payload: {
          type: 'tool_call',
          callId: message.callId,
          toolName: message.toolName,
          arguments: message.arguments,
        },
      };
    case 'tool_result':
      return {
        timestamp,
        payload: {
          type: 'tool_result',
          callId: message.callId,
          content: message.content,
          isError: message.isError,
        },
      };
    case 'system':
      return { timestamp, payload: { type: 'system_message', content: message.content } };
  }
}

/**
 * Replays stored events into a history. `interruptedNote` is the system message added after an
 * incomplete assistant message — the same note the live session adds, so resumed and live
 * histories are equal.
 */
export function replaySessionEvents(
  events: readonly SessionEvent[],
  interruptedNote: string,
): ReplayedSession {
  let messages: Message[] = [];
  let config: StoredSessionConfig | null = null;
  let turnCount = 0;
  let checkpointTurn = 0;
  let checkpointSeen = false;
  for (const event of events) {
    const p = event.payload;
    if (p.type === 'metadata') {
      if (p.key === SESSION_CONFIG_KEY) {
        const parsed = z.safeParse(StoredSessionConfigSchema, p.value);
        if (parsed.success) {
          const c: StoredSessionConfig = { modelId: parsed.data.modelId };
          if (parsed.data.systemPromptOverride !== undefined)
            c.systemPromptOverride = parsed.data.systemPromptOverride;
          config = c;
        }
      } else if (p.key === CONTEXT_SNAPSHOT_KEY) {
        const parsed = z.safeParse(SnapshotSchema, p.value);
        if (parsed.success) messages = parsed.data;
      } else if (p.key === MEMORY_CHECKPOINT_KEY) {
        // Written at the end of the checkpoint turn: the user messages so far count that turn.
        checkpointTurn = turnCount;
        checkpointSeen = true;
      }
      continue;
    }
    if (p.type === 'user_message') turnCount++;
    const message = eventToMessage(event);
    if (!message) continue;
    messages.push(message);
    if (message.type === 'assistant' && message.status === 'incomplete')
      messages.push({ type: 'system', content: interruptedNote });
  }
  return { messages, config, turnCount, checkpointTurn: checkpointSeen ? checkpointTurn : null };
}

/**
 * What the cases of the session storage contract share: fixed times, event builders, seeding and
 * listing helpers.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import type { ContentBlock, SessionEvent, SessionSummary } from '../../../types.js';
import { check } from '../check.js';

const BASE_TIME = Date.UTC(2024, 0, 1, 9, 0, 0);

/** ISO timestamp `seconds` after a fixed base time (UTC, millisecond form). */
export function at(seconds: number): string {
  return new Date(BASE_TIME + seconds * 1000).toISOString();
}

export function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

export const event = {
  user: (seconds: number, ...blocks: (string | ContentBlock)[]): SessionEvent => ({
    timestamp: at(seconds),
    payload: {
      type: 'user_message',
      content: blocks.map((block) => (typeof block === 'string' ? text(block) : block)),
    },
  }),
  assistant: (seconds: number, value: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'assistant_message', content: [text(value)], status: 'complete' },
  }),
  toolCall: (seconds: number, callId: string, args: unknown): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'tool_call', callId, toolName: 'lookup', arguments: args },
  }),
  toolResult: (seconds: number, callId: string, content: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'tool_result', callId, content, isError: false },
  }),
  system: (seconds: number, content: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'system_message', content },
  }),
  owner: (seconds: number, userId: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'metadata', key: 'session_owner', value: { userId } },
  }),
  config: (seconds: number, modelId: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'metadata', key: 'session_config', value: { modelId } },
  }),
};

/** Saves one user message per id, at the given seconds (so `updatedAt` is known). */
export async function seed(storage: SessionStorage, sessions: [id: string, seconds: number][]) {
  for (const [id, seconds] of sessions) await storage.saveEvent(id, event.user(seconds, `hello ${id}`));
}

export async function summaryOf(storage: SessionStorage, id: string): Promise<SessionSummary> {
  const { sessions } = await storage.listSessions(null, 1000);
  const summary = sessions.find((candidate) => candidate.id === id);
  check.ok(summary !== undefined, `session '${id}' is not listed`);
  return summary;
}

export function ids(summaries: readonly SessionSummary[]): string[] {
  return summaries.map((summary) => summary.id);
}

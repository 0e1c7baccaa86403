/**
 * Checks and copies for histories and stored sessions: the rule every OpenAI-compatible server
 * enforces on tool calls, and a "reload" — the events a page had stored when it died, in a fresh
 * storage for a fresh Agent.
 * @module
 */
import {
  InMemorySessionStorage,
  type Message,
  type SessionEvent,
  type SessionStorage,
} from '../../src/index.js';
import { promiseJobsRun } from './waits.js';

/**
 * The problems of `messages` under the tool-call rule: each `tool_call` is answered by exactly
 * one `tool_result` before the next assistant, user or system message, and no result answers a
 * call that is not open. `[]` when the history is valid.
 */
export function toolPairingProblems(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  const closeRun = (at: number) => {
    for (const callId of open) problems.push(`call ${callId} has no result before message ${at}`);
    open = new Set();
  };
  messages.forEach((message, i) => {
    if (message.type === 'tool_call') open.add(message.callId);
    else if (message.type === 'tool_result') {
      if (!open.delete(message.callId))
        problems.push(`result ${message.callId} at ${i} answers no open call`);
    } else closeRun(i);
  });
  closeRun(messages.length);
  return problems;
}

/**
 * What a new page finds of a session after the old page closed mid-turn: the events it had
 * stored once its pending writes ran, copied into a fresh in-memory storage.
 * @example
 * const storage = await storedAfterClose(first.sessionStorage!, session.id);
 */
export async function storedAfterClose(
  storage: SessionStorage,
  sessionId: string,
): Promise<InMemorySessionStorage> {
  await promiseJobsRun();
  return storedCopy(storage, sessionId);
}

/** The stored events of `sessionId` as a page left them, in a new in-memory storage. */
export async function storedCopy<S extends SessionStorage = InMemorySessionStorage>(
  storage: SessionStorage,
  sessionId: string,
  into: S = new InMemorySessionStorage() as unknown as S,
): Promise<S> {
  for (const event of (await storage.loadSession(sessionId)) ?? []) await into.saveEvent(sessionId, event);
  return into;
}

/** A stored event's short label: the payload type, or `metadata:<key>`. */
export function eventLabel(event: SessionEvent): string {
  const p = event.payload;
  return p.type === 'metadata' ? `metadata:${p.key}` : p.type;
}

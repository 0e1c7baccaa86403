/**
 * The pure derivation of items from messages in stored shape, and from a session's stored events
 * (compaction notices from the snapshots, the strategy told by what changed).
 */
import { describe, expect, it } from 'vitest';
import { compactionStrategy, itemsFromStoredEvents } from '../../src/conversation/from-stored-events.js';
import { itemsFromMessages } from '../../src/conversation/from-messages.js';
import {
  clearedToolResult,
  COMPACTION_SUMMARY_PREFIX,
  INTERRUPTED_MESSAGE_NOTE,
  MAX_TOOL_CALLS_NOTE,
  skillInjectionText,
} from '../../src/prompt/templates.js';
import { TOOL_CALL_SKIPPED_TEXT } from '../../src/prompt/tool-result-texts.js';
import type { Message, SessionEvent } from '../../src/types.js';
import { label, text } from './support.js';

const user = (t: string): Message => ({ type: 'user', content: text(t) });
const assistant = (t: string, status: 'complete' | 'incomplete' = 'complete'): Message => ({
  type: 'assistant',
  content: t ? text(t) : [],
  status,
});
const call = (callId: string): Message => ({
  type: 'tool_call',
  callId,
  toolName: 'echo',
  arguments: { callId },
});
const result = (callId: string, content: string, isError = false): Message => ({
  type: 'tool_result',
  callId,
  content,
  isError,
});
const system = (content: string): Message => ({ type: 'system', content });

/** Stored events for these messages (the interrupted note is never stored). */
const stored = (...entries: (Message | { snapshot: Message[] })[]): SessionEvent[] =>
  entries.map((entry) => {
    const timestamp = '2026-01-01T00:00:00.000Z';
    if ('snapshot' in entry) {
      return { timestamp, payload: { type: 'metadata', key: 'context_snapshot', value: entry.snapshot } };
    }
    switch (entry.type) {
      case 'user':
        return { timestamp, payload: { type: 'user_message', content: entry.content } };
      case 'assistant':
        return {
          timestamp,
          payload: { type: 'assistant_message', content: entry.content, status: entry.status },
        };
      case 'system':
        return { timestamp, payload: { type: 'system_message', content: entry.content } };
      default:
        return { timestamp, payload: entry };
    }
  });

describe('items from messages', () => {
  it('a user item per user message, an assistant item per answer with text', () => {
    expect(itemsFromMessages([user('hi'), assistant('Hello!'), user('bye'), assistant('')])).toEqual([
      { kind: 'user', id: 'message-0', content: text('hi') },
      { kind: 'assistant', id: 'message-1', text: 'Hello!', reasoning: '', status: 'complete' },
      { kind: 'user', id: 'message-2', content: text('bye') },
    ]);
  });

  it('a tool item per call, its status from its result; no empty answer before the calls', () => {
    const items = itemsFromMessages([
      user('go'),
      assistant(''),
      call('a'),
      call('b'),
      call('c'),
      call('d'),
      result('a', 'fine'),
      result('b', 'boom', true),
      result('c', TOOL_CALL_SKIPPED_TEXT, true),
    ]);
    expect(items.map(label)).toEqual([
      'user message-0',
      'tool a done',
      'tool b error',
      'tool c skipped',
      'tool d running', // no result (yet)
    ]);
    expect(items[2]).toEqual({
      kind: 'tool',
      callId: 'b',
      toolName: 'echo',
      arguments: { callId: 'b' },
      status: 'error',
      output: { content: 'boom', isError: true },
    });
  });

  it('a reused call id belongs to its latest call', () => {
    const items = itemsFromMessages([call('x'), result('x', 'one'), call('x'), result('x', 'two', true)]);
    expect(items.map(label)).toEqual(['tool x done', 'tool x error']);
  });

  it('notices for the runtime notes only, with the ids of their messages', () => {
    const items = itemsFromMessages([
      system(skillInjectionText('review', 'Review the code.')),
      user('go'),
      assistant('Half', 'incomplete'),
      system(INTERRUPTED_MESSAGE_NOTE),
      system(MAX_TOOL_CALLS_NOTE(50)),
      system(`${COMPACTION_SUMMARY_PREFIX}\n\nsummary`),
      system('an app note'),
    ]);
    expect(items.map(label)).toEqual([
      'notice message-0 info: Using the skill /review.',
      'user message-1',
      'assistant message-2 incomplete',
      'notice message-3 warning: The answer was interrupted before it was finished.',
      'notice message-4 warning: The turn stopped at its limit of 50 tool calls.',
    ]);
  });
});

describe('items from stored events', () => {
  it('derives the interrupted note after an incomplete answer, counted in the ids', () => {
    const items = itemsFromStoredEvents(
      stored(user('a'), assistant('b', 'incomplete'), user('c')),
    ).snapshot();
    expect(items.map(label)).toEqual([
      'user message-0',
      'assistant message-1 incomplete',
      'notice message-2 warning: The answer was interrupted before it was finished.',
      'user message-3',
    ]);
  });

  it('keeps the messages a compaction let go, with a notice per snapshot', () => {
    const before = [user('long'), assistant('ok'), call('t'), result('t', 'big output')];
    const micro = [user('long'), assistant('ok'), call('t'), result('t', clearedToolResult(10))];
    const summary = [system(`${COMPACTION_SUMMARY_PREFIX}\n\ns`), user('next')];
    const items = itemsFromStoredEvents(
      stored(...before, { snapshot: micro }, user('next'), { snapshot: summary }, assistant('done')),
    ).snapshot();
    expect(items.map(label)).toEqual([
      'user message-0',
      'assistant message-1 complete',
      'tool t done',
      'notice compaction-1 info: Older tool outputs were cleared from the context to save space.',
      'user message-4',
      'notice compaction-2 info: Earlier messages were summarized to save context space.',
      'assistant message-5 complete',
    ]);
    // The tool item shows the output the turn showed, not the placeholder.
    expect(items[2]).toMatchObject({ output: { content: 'big output' } });
  });

  it('ignores a snapshot resume ignores (invalid) and other metadata', () => {
    const events: SessionEvent[] = [
      ...stored(user('a')),
      {
        timestamp: '2026-01-01T00:00:00.000Z',
        payload: { type: 'metadata', key: 'context_snapshot', value: 42 },
      },
      {
        timestamp: '2026-01-01T00:00:00.000Z',
        payload: { type: 'metadata', key: 'session_config', value: {} },
      },
    ];
    expect(itemsFromStoredEvents(events).snapshot().map(label)).toEqual(['user message-0']);
  });
});

describe('which strategy made a snapshot', () => {
  const summaryOf = (s: string) => system(`${COMPACTION_SUMMARY_PREFIX}\n\n${s}`);

  it('micro: the same messages, only tool results shortened', () => {
    expect(
      compactionStrategy(
        [user('a'), call('t'), result('t', 'long')],
        [user('a'), call('t'), result('t', clearedToolResult(4))],
      ),
    ).toBe('micro');
    // ...also after an earlier summary, which stays the first message.
    expect(
      compactionStrategy(
        [summaryOf('old'), call('t'), result('t', 'long')],
        [summaryOf('old'), call('t'), result('t', clearedToolResult(4))],
      ),
    ).toBe('micro');
  });

  it('summary: fewer messages, other types, or a new summary in place of an old one', () => {
    expect(compactionStrategy([user('a'), assistant('b'), user('c')], [summaryOf('s'), user('c')])).toBe(
      'summary',
    );
    expect(compactionStrategy([user('a'), user('c')], [summaryOf('s'), user('c')])).toBe('summary');
    expect(compactionStrategy([summaryOf('old'), user('c')], [summaryOf('new'), user('c')])).toBe('summary');
  });
});

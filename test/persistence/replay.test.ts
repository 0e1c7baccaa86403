import { describe, expect, it } from 'vitest';
import { messageToEvent, replaySessionEvents } from '../../src/persistence/replay.js';
import type { Message, SessionEvent } from '../../src/types.js';

const ts = '2026-11-29T10:00:00.000Z';
const ev = (payload: SessionEvent['payload']): SessionEvent => ({ timestamp: ts, payload });
const NOTE = '[interrupted]';

describe('resume mapping', () => {
  it('maps every event type to its message and skips metadata', () => {
    const events = [
      ev({ type: 'metadata', key: 'session_config', value: { modelId: 'm', systemPromptOverride: 'x' } }),
      ev({ type: 'system_message', content: '<skill>…</skill>' }),
      ev({ type: 'user_message', content: [{ type: 'text', text: 'hi' }] }),
      ev({ type: 'assistant_message', content: [], status: 'complete' }),
      ev({ type: 'tool_call', callId: 'c', toolName: 't', arguments: '{raw' }),
      ev({ type: 'tool_result', callId: 'c', content: 'bad json', isError: true }),
      ev({ type: 'assistant_message', content: [{ type: 'text', text: 'par' }], status: 'incomplete' }),
      ev({ type: 'metadata', key: 'other', value: 1 }),
    ];
    const replayed = replaySessionEvents(events, NOTE);
    expect(replayed.config).toEqual({ modelId: 'm', systemPromptOverride: 'x' });
    expect(replayed.turnCount).toBe(1);
    expect(replayed.messages).toEqual([
      { type: 'system', content: '<skill>…</skill>' },
      { type: 'user', content: [{ type: 'text', text: 'hi' }] },
      { type: 'assistant', content: [], status: 'complete' },
      { type: 'tool_call', callId: 'c', toolName: 't', arguments: '{raw' },
      { type: 'tool_result', callId: 'c', content: 'bad json', isError: true },
      { type: 'assistant', content: [{ type: 'text', text: 'par' }], status: 'incomplete' },
      { type: 'system', content: NOTE },
    ]);
  });

  it('round-trips every message through its event', () => {
    const messages: Message[] = [
      { type: 'user', content: [{ type: 'image', data: 'AAAA', mediaType: 'image/png' }] },
      { type: 'assistant', content: [{ type: 'text', text: 'a' }], status: 'complete' },
      { type: 'tool_call', callId: 'c', toolName: 't', arguments: { a: 1 } },
      { type: 'tool_result', callId: 'c', content: 'r', isError: false },
      { type: 'system', content: 's' },
    ];
    expect(
      replaySessionEvents(
        messages.map((m) => messageToEvent(m, ts)),
        NOTE,
      ).messages,
    ).toEqual(messages);
  });

  it('starts from the last valid context snapshot and applies the events after it', () => {
    const snapshot: Message[] = [
      { type: 'system', content: 'summary' },
      { type: 'user', content: [{ type: 'text', text: 'kept' }] },
    ];
    const events = [
      ev({ type: 'user_message', content: [{ type: 'text', text: 'old' }] }),
      ev({ type: 'metadata', key: 'context_snapshot', value: snapshot }),
      ev({ type: 'metadata', key: 'context_snapshot', value: [{ type: 'bogus' }] }), // invalid: ignored
      ev({ type: 'assistant_message', content: [{ type: 'text', text: 'new' }], status: 'complete' }),
    ];
    const replayed = replaySessionEvents(events, NOTE);
    expect(replayed.messages).toEqual([
      ...snapshot,
      { type: 'assistant', content: [{ type: 'text', text: 'new' }], status: 'complete' },
    ]);
    expect(replayed.turnCount).toBe(1);
  });

  it('falls back to defaults without a (valid) session_config', () => {
    expect(
      replaySessionEvents([ev({ type: 'metadata', key: 'session_config', value: { nope: 1 } })], NOTE).config,
    ).toBeNull();
  });
});

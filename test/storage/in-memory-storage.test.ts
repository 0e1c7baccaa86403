import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { InMemoryMemoryStorage } from '../../src/storage/in-memory-memory-storage.js';
import { InMemorySessionStorage } from '../../src/storage/in-memory-session-storage.js';
import type { Memory, SessionEvent } from '../../src/types.js';

async function rejection(promise: Promise<unknown>): Promise<AgentError> {
  try {
    await promise;
  } catch (error) {
    expect(AgentError.isInstance(error)).toBe(true);
    return error as AgentError;
  }
  throw new Error('expected a rejection');
}

const note: SessionEvent = {
  timestamp: '2024-01-01T00:00:00.000Z',
  payload: { type: 'system_message', content: 'x' },
};

describe('InMemorySessionStorage input checks', () => {
  it('names the failing path of an invalid event', async () => {
    const error = await rejection(
      new InMemorySessionStorage().saveEvent('s', {
        ...note,
        payload: { type: 'user_message', content: [{ type: 'text', text: 1 }] },
      } as unknown as SessionEvent),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('event.payload');
  });

  it('rejects an empty or non-string session id', async () => {
    const storage = new InMemorySessionStorage();
    for (const id of ['', 42 as unknown as string]) {
      expect((await rejection(storage.saveEvent(id, note))).code).toBe('INVALID_INPUT');
      expect((await rejection(storage.loadSession(id))).code).toBe('INVALID_INPUT');
    }
  });

  it('rejects a value it cannot copy, and stores nothing', async () => {
    const storage = new InMemorySessionStorage();
    const event = {
      timestamp: note.timestamp,
      payload: { type: 'tool_call', callId: 'c', toolName: 't', arguments: { fn: () => 1 } },
    } as SessionEvent;
    const error = await rejection(storage.saveEvent('s', event));
    expect(error.code).toBe('INVALID_INPUT');
    expect(await storage.loadSession('s')).toBeNull();
  });

  it('rejects a non-string query', async () => {
    const error = await rejection(new InMemorySessionStorage().findSessions(7 as unknown as string));
    expect(error.code).toBe('INVALID_INPUT');
  });
});

describe('InMemoryMemoryStorage input checks', () => {
  const memory: Memory = {
    id: 'm',
    namespace: 'ns',
    content: 'c',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
  };

  it('names the failing path of an invalid memory', async () => {
    const error = await rejection(new InMemoryMemoryStorage().save({ ...memory, updatedAt: 'soon' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('memory.updatedAt');
  });

  it('rejects a non-string namespace, query or id', async () => {
    const storage = new InMemoryMemoryStorage();
    const bad = 1 as unknown as string;
    expect((await rejection(storage.search(bad, '', 1))).code).toBe('INVALID_INPUT');
    expect((await rejection(storage.search('ns', bad, 1))).code).toBe('INVALID_INPUT');
    expect((await rejection(storage.delete(bad))).code).toBe('INVALID_INPUT');
  });
});

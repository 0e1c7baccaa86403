import { describe, expect, it } from 'vitest';
import { InMemoryMemoryStorage } from '../../src/storage/in-memory-memory-storage.js';
import { InMemorySessionStorage } from '../../src/storage/in-memory-session-storage.js';
import type { Memory, SessionEvent } from '../../src/types.js';
import { expectAgentError } from '../support/errors.js';

const note: SessionEvent = {
  timestamp: '2024-01-01T00:00:00.000Z',
  payload: { type: 'system_message', content: 'x' },
};

describe('InMemorySessionStorage input checks', () => {
  it('names the failing path of an invalid event', async () => {
    const error = await expectAgentError(
      new InMemorySessionStorage().saveEvent('s', {
        ...note,
        payload: { type: 'user_message', content: [{ type: 'text', text: 1 }] },
      } as unknown as SessionEvent),
      'INVALID_INPUT',
    );
    expect(error.message).toContain('event.payload');
  });

  it('rejects an empty or non-string session id', async () => {
    const storage = new InMemorySessionStorage();
    for (const id of ['', 42 as unknown as string]) {
      await expectAgentError(storage.saveEvent(id, note), 'INVALID_INPUT');
      await expectAgentError(storage.loadSession(id), 'INVALID_INPUT');
    }
  });

  it('rejects a value it cannot copy, and stores nothing', async () => {
    const storage = new InMemorySessionStorage();
    const event = {
      timestamp: note.timestamp,
      payload: { type: 'tool_call', callId: 'c', toolName: 't', arguments: { fn: () => 1 } },
    } as SessionEvent;
    await expectAgentError(storage.saveEvent('s', event), 'INVALID_INPUT');
    expect(await storage.loadSession('s')).toBeNull();
  });

  it('checks the writer epoch of saveEvent: a whole number ≥ 0 or none, else INVALID_INPUT', async () => {
    const storage = new InMemorySessionStorage();
    const epoch = await storage.claimWriter('s');
    await storage.saveEvent('s', note);
    await storage.saveEvent('s', note, {});
    await storage.saveEvent('s', note, { writerEpoch: epoch });
    for (const options of [{ writerEpoch: -1 }, { writerEpoch: 1.5 }, { writerEpoch: '1' }, [], 'x', null]) {
      await expectAgentError(
        storage.saveEvent('s', note, options as unknown as { writerEpoch?: number }),
        'INVALID_INPUT',
        'options',
      );
    }
    expect(await storage.loadSession('s')).toHaveLength(3);
  });

  it('rejects a non-string query', async () => {
    await expectAgentError(
      new InMemorySessionStorage().findSessions(7 as unknown as string),
      'INVALID_INPUT',
    );
  });
});

describe('InMemorySessionStorage namespace', () => {
  it('is unique per instance unless given, so two in-memory storages never share a lock', async () => {
    const [a, b] = [new InMemorySessionStorage(), new InMemorySessionStorage()];
    expect(a.namespace).toMatch(/^in-memory-/);
    expect(a.namespace).not.toBe(b.namespace);
    expect(new InMemorySessionStorage({ namespace: 'shared' }).namespace).toBe('shared');
    await expectAgentError(() => new InMemorySessionStorage({ namespace: '' }), 'INVALID_INPUT', 'namespace');
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
    const error = await expectAgentError(
      new InMemoryMemoryStorage().save({ ...memory, updatedAt: 'soon' }),
      'INVALID_INPUT',
    );
    expect(error.message).toContain('memory.updatedAt');
  });

  it('rejects a non-string namespace, query or id', async () => {
    const storage = new InMemoryMemoryStorage();
    const bad = 1 as unknown as string;
    await expectAgentError(storage.search(bad, '', 1), 'INVALID_INPUT');
    await expectAgentError(storage.search('ns', bad, 1), 'INVALID_INPUT');
    await expectAgentError(storage.delete(bad), 'INVALID_INPUT');
  });
});

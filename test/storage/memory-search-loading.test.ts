/**
 * MiniSearch loads on a memory storage's first search, not at import: a failed load is a
 * `STORAGE_ERROR` for that search, and the next search tries again.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AgentError } from '../../src/errors.js';

afterEach(() => {
  vi.doUnmock('minisearch');
  vi.resetModules();
});

const memory = {
  id: 'm-1',
  namespace: 'alice',
  content: 'Alice drinks coffee',
  tags: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('loading the memory search', () => {
  it('a load that fails rejects that search with STORAGE_ERROR; the next search loads it', async () => {
    vi.resetModules();
    vi.doMock('minisearch', () => {
      throw new Error('chunk failed to download');
    });
    const { InMemoryMemoryStorage } = await import('../../src/storage/in-memory-memory-storage.js');
    const storage = new InMemoryMemoryStorage();
    await storage.save(memory);
    const failed = await storage.search('alice', 'coffee', 5).catch((error: unknown) => error);
    expect(AgentError.isInstance(failed)).toBe(true);
    expect(failed).toMatchObject({ code: 'STORAGE_ERROR' });
    expect((failed as AgentError).message).toContain('minisearch');

    vi.doUnmock('minisearch');
    const found = await storage.search('alice', 'coffee', 5);
    expect(found.map((m) => m.id)).toEqual(['m-1']);
  });
});

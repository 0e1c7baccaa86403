import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { PendingWrites } from '../../src/persistence/pending-writes.js';
import type { SessionEvent, SessionStorage } from '../../src/index.js';
import { deferred, hasSettled, type Deferred } from '../support/waits.js';

describe('PendingWrites', () => {
  const event = (n: number): SessionEvent => ({
    timestamp: '2026-11-29T00:00:00.000Z',
    payload: { type: 'system_message', content: String(n) },
  });

  it('hands writes over in order without waiting, and drain waits for all of them', async () => {
    const calls: string[] = [];
    const held = new Map<string, Deferred<void>>();
    const storage = {
      saveEvent: (_: string, e: SessionEvent) => {
        const n = (e.payload as { content: string }).content;
        calls.push(n);
        const write = deferred();
        held.set(n, write);
        return write.promise;
      },
    } as unknown as SessionStorage;
    const queue = new PendingWrites('s', storage, () => {});
    for (let i = 0; i < 4; i++) queue.enqueue(event(i));
    expect(calls).toEqual(['0', '1', '2', '3']);
    const drained = queue.drain();
    // The writes finish in reverse order: drain waits for the last of them, the first one.
    for (const n of ['3', '2', '1']) held.get(n)!.resolve();
    expect(await hasSettled(drained)).toBe(false);
    held.get('0')!.resolve();
    await drained;
  });

  it('reports failures (sync or async) as STORAGE_ERROR and keeps going', async () => {
    const errors: AgentError[] = [];
    let n = 0;
    const storage = {
      saveEvent: (_: string, _e: SessionEvent) => {
        n++;
        if (n === 1) throw new Error('sync boom');
        if (n === 2) return Promise.reject(new AgentError('INVALID_INPUT', 'bad'));
        return Promise.resolve();
      },
    } as unknown as SessionStorage;
    const queue = new PendingWrites('s', storage, (e) => errors.push(e));
    queue.enqueue(event(1));
    queue.enqueue(event(2));
    queue.enqueue(event(3));
    await queue.drain();
    expect(errors.map((e) => e.code)).toEqual(['STORAGE_ERROR', 'STORAGE_ERROR']);
    expect(errors[0]!.message).toContain('sync boom');
  });
});

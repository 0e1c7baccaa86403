import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { AgentError } from '../../src/errors.js';
import { EventHub } from '../../src/events/event-hub.js';
import { PendingWrites } from '../../src/persistence/pending-writes.js';
import type { SessionEvent, SessionStorage } from '../../src/index.js';

describe('EventHub', () => {
  it('numbers events from 1 across turns and replays a turn to late subscribers', async () => {
    const hub = new EventHub('s');
    const live: number[] = [];
    hub.events.subscribe((e) => live.push(e.sequence));
    const t1 = hub.openTurn('t1');
    hub.emit('t1', { type: 'text_delta', text: 'a' });
    hub.emit(null, { type: 'turn_cancelled' });
    hub.emit('t1', { type: 'turn_cancelled' });
    hub.closeTurn('t1');
    const t2 = hub.openTurn('t2');
    hub.emit('t2', { type: 'text_delta', text: 'b' });
    hub.closeTurn('t2');
    expect(live).toEqual([1, 2, 3, 4]);
    const late = await lastValueFrom(t1.pipe(toArray()));
    expect(late.map((e) => [e.sequence, e.turnId])).toEqual([
      [1, 't1'],
      [3, 't1'],
    ]);
    expect((await lastValueFrom(t2.pipe(toArray()))).map((e) => e.sequence)).toEqual([4]);
  });

  it('hands events emitted before any subscriber to the first one only', () => {
    const hub = new EventHub('s');
    hub.emit(null, { type: 'turn_cancelled' });
    hub.opened();
    hub.emit(null, { type: 'turn_cancelled' }); // after opening: live only
    const first: number[] = [];
    const second: number[] = [];
    hub.events.subscribe((e) => first.push(e.sequence));
    hub.events.subscribe((e) => second.push(e.sequence));
    hub.emit(null, { type: 'turn_cancelled' });
    expect(first).toEqual([1, 3]);
    expect(second).toEqual([3]);
  });

  it('completes the session stream', async () => {
    const hub = new EventHub('s');
    const all = lastValueFrom(hub.events.pipe(toArray()));
    hub.emit(null, { type: 'turn_cancelled' });
    hub.complete();
    expect(await all).toHaveLength(1);
  });
});

describe('PendingWrites', () => {
  const event = (n: number): SessionEvent => ({
    timestamp: '2026-11-29T00:00:00.000Z',
    payload: { type: 'system_message', content: String(n) },
  });

  it('hands writes over in order without waiting, and drain waits for all of them', async () => {
    const calls: string[] = [];
    const done: string[] = [];
    const storage = {
      saveEvent: async (_: string, e: SessionEvent) => {
        const n = (e.payload as { content: string }).content;
        calls.push(n);
        await new Promise((r) => setTimeout(r, 5 - Number(n)));
        done.push(n);
      },
    } as unknown as SessionStorage;
    const queue = new PendingWrites('s', storage, () => {});
    for (let i = 0; i < 4; i++) queue.enqueue(event(i));
    expect(calls).toEqual(['0', '1', '2', '3']);
    await queue.drain();
    expect(done.sort()).toEqual(['0', '1', '2', '3']);
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

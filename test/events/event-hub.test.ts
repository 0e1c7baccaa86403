import { lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EventHub } from '../../src/events/event-hub.js';

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

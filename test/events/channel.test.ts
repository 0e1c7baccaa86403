import { lastValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { Channel } from '../../src/events/channel.js';

describe('Channel', () => {
  it('replays everything pushed so far to a late subscriber, then goes on live', () => {
    const channel = new Channel<number>({ replay: true });
    channel.next(1);
    channel.next(2);
    const seen: number[] = [];
    channel.observable.subscribe((n) => seen.push(n));
    channel.next(3);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('without replay, a subscriber sees only what is pushed after it subscribed', () => {
    const channel = new Channel<number>({ replay: false });
    channel.next(1);
    const seen: number[] = [];
    channel.observable.subscribe((n) => seen.push(n));
    channel.next(2);
    expect(seen).toEqual([2]);
  });

  it('after complete, a new subscriber gets the replay and then completion; later pushes are dropped', async () => {
    const channel = new Channel<number>({ replay: true });
    channel.next(1);
    channel.complete();
    channel.next(2);
    expect(await lastValueFrom(channel.observable.pipe(toArray()))).toEqual([1]);
    const live = new Channel<number>({ replay: false });
    live.complete();
    expect(await lastValueFrom(live.observable.pipe(toArray()))).toEqual([]);
  });

  it('completes the subscribers it has, once', () => {
    const channel = new Channel<number>({ replay: false });
    let completions = 0;
    channel.observable.subscribe({ complete: () => completions++ });
    channel.complete();
    channel.complete();
    expect(completions).toBe(1);
  });

  it('keeps the order when a subscriber pushes while it is being replayed to', () => {
    const channel = new Channel<number>({ replay: true });
    channel.next(1);
    channel.next(2);
    const seen: number[] = [];
    channel.observable.subscribe((n) => {
      seen.push(n);
      if (n === 1) channel.next(3);
    });
    channel.next(4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  it('a subscriber added during a push gets the next value, not the current one', () => {
    const channel = new Channel<number>({ replay: false });
    const late: number[] = [];
    channel.observable.pipe(take(1)).subscribe(() => {
      channel.observable.subscribe((n) => late.push(n));
    });
    channel.next(1);
    channel.next(2);
    expect(late).toEqual([2]);
  });

  it('a subscriber that unsubscribes (itself or another) during a push gets nothing more', () => {
    const channel = new Channel<number>({ replay: false });
    const first: number[] = [];
    const second: number[] = [];
    const b = { unsubscribe: () => {} };
    channel.observable.subscribe((n) => {
      first.push(n);
      b.unsubscribe();
    });
    const subscription = channel.observable.subscribe((n) => second.push(n));
    b.unsubscribe = () => subscription.unsubscribe();
    channel.next(1);
    channel.next(2);
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([]);
  });
});

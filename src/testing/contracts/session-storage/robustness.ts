/**
 * Copies, volume and concurrency: stored data is immune to mutation, many events and parallel writers keep their order.
 * @module
 */
import type { SessionStorage } from '../../../ports/storage.js';
import type { ContentBlock, SessionEvent } from '../../../types.js';
import { check, type ContractCase } from '../check.js';
import { at, event, summaryOf, text } from './fixtures.js';

/** Cases of the session storage contract: copies, volume and concurrency. */
export const robustnessCases: ContractCase<SessionStorage>[] = [
  {
    name: 'stored data is immune to later mutation of saved and returned objects',
    async run(storage) {
      const saved = event.toolCall(1, 'c1', { list: [1, 2], inner: { value: 'original' } });
      const user = event.user(2, 'original text');
      await storage.saveEvent('s1', saved);
      await storage.saveEvent('s1', user);
      const expected = [
        event.toolCall(1, 'c1', { list: [1, 2], inner: { value: 'original' } }),
        event.user(2, 'original text'),
      ];

      // Mutate what was saved.
      (saved.payload as { arguments: { inner: { value: string }; list: number[] } }).arguments.inner.value =
        'changed';
      (saved.payload as { arguments: { list: number[] } }).arguments.list.push(3);
      (user.payload as { content: ContentBlock[] }).content[0] = text('changed');
      check.deepEqual(await storage.loadSession('s1'), expected, 'after mutating saved events');

      // Mutate what was returned.
      const loaded = await storage.loadSession('s1');
      check.ok(loaded !== null, 'session loads');
      (loaded[0]!.payload as { arguments: { inner: { value: string } } }).arguments.inner.value = 'changed';
      loaded[1]!.timestamp = at(99);
      loaded.pop();
      check.deepEqual(await storage.loadSession('s1'), expected, 'after mutating loaded events');

      const summary = await summaryOf(storage, 's1');
      const before = { ...summary };
      summary.title = 'changed';
      summary.eventCount = 99;
      check.deepEqual(await summaryOf(storage, 's1'), before, 'after mutating a listed summary');
      const [found] = await storage.findSessions('original');
      check.ok(found !== undefined, 'session found');
      found.title = 'changed';
      check.deepEqual(await summaryOf(storage, 's1'), before, 'after mutating a found summary');
    },
  },
  {
    name: '1,000 events round trip in order',
    async run(storage) {
      const events: SessionEvent[] = [];
      for (let i = 0; i < 1000; i += 1) {
        const item =
          i % 3 === 0
            ? event.user(i, `message ${i}`)
            : i % 3 === 1
              ? event.toolCall(i, `call-${i}`, { index: i })
              : event.toolResult(i, `call-${i - 1}`, `result ${i}`);
        events.push(item);
        await storage.saveEvent('long', item);
      }
      check.deepEqual(await storage.loadSession('long'), events, 'loaded events');
      const summary = await summaryOf(storage, 'long');
      check.equal(summary.eventCount, 1000, 'eventCount');
      check.equal(summary.turnCount, 334, 'turnCount');
      check.equal(summary.updatedAt, at(999), 'updatedAt');
    },
  },
  {
    name: 'concurrent saveEvent calls to two sessions keep each session in order',
    async run(storage) {
      const a: SessionEvent[] = [];
      const b: SessionEvent[] = [];
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 200; i += 1) {
        const forA = event.assistant(i, `a${i}`);
        const forB = event.toolResult(i, `b${i}`, `b${i}`);
        a.push(forA);
        b.push(forB);
        // Not awaited: the calls are in flight together, interleaved.
        writes.push(storage.saveEvent('a', forA), storage.saveEvent('b', forB));
      }
      await Promise.all(writes);
      check.deepEqual(await storage.loadSession('a'), a, 'session a');
      check.deepEqual(await storage.loadSession('b'), b, 'session b');
      check.equal((await summaryOf(storage, 'a')).eventCount, 200, 'eventCount of a');
      check.equal((await summaryOf(storage, 'b')).eventCount, 200, 'eventCount of b');
    },
  },
];

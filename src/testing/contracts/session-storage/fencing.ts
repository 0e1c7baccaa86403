/**
 * Writer fencing (optional: run when the storage has `claimWriter`): a replaced writer's writes are refused.
 * @module
 */
import { AgentError } from '../../../errors.js';
import type { SessionStorage } from '../../../ports/storage.js';
import type { SessionEvent } from '../../../types.js';
import { check, type ContractCase } from '../check.js';
import { at, event, summaryOf } from './fixtures.js';

type Fenced = SessionStorage & Required<Pick<SessionStorage, 'claimWriter'>>;

/** The storage, when it fences writers; `null` when it has no `claimWriter`. */
function fenced(storage: SessionStorage): Fenced | null {
  return typeof storage.claimWriter === 'function' ? (storage as Fenced) : null;
}

/** `write` is refused as a stale writer's: `STORAGE_ERROR` whose cause is `SESSION_WRITER_REPLACED`. */
async function refusedAsStale(write: Promise<unknown>, what: string): Promise<void> {
  const error = await check.rejects(write, 'STORAGE_ERROR', what);
  check.ok(
    AgentError.isInstance(error.cause) && error.cause.code === 'SESSION_WRITER_REPLACED',
    `${what}: expected the cause to be an AgentError SESSION_WRITER_REPLACED, got ${String(error.cause)}`,
  );
}

/** Cases of the session storage contract: writer fencing (optional. */
export const fencingCases: ContractCase<SessionStorage>[] = [
  {
    name: 'claimWriter: each claim of a session returns a greater epoch, and an unknown session may be claimed',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const first = await storage.claimWriter('new');
      const second = await storage.claimWriter('new');
      check.ok(Number.isInteger(first) && first >= 0, `an epoch is a non-negative integer (got ${first})`);
      check.ok(second > first, `the second claim's epoch is greater (got ${first}, then ${second})`);
      check.equal(await storage.loadSession('new'), null, 'a claim alone creates no session');
      check.deepEqual(await storage.listSessions(null, 10), { sessions: [], nextCursor: null }, 'listed');
      await storage.saveEvent('new', event.user(1, 'first event'), { writerEpoch: second });
      check.deepEqual(await storage.loadSession('new'), [event.user(1, 'first event')], 'written');
    },
  },
  {
    name: 'a stale writer is refused (STORAGE_ERROR, cause SESSION_WRITER_REPLACED), nothing of its write is stored, the new writer writes',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const a = await storage.claimWriter('s1');
      await storage.saveEvent('s1', event.user(1, 'from a'), { writerEpoch: a });
      const b = await storage.claimWriter('s1');
      await refusedAsStale(
        storage.saveEvent('s1', event.user(2, 'late write of a'), { writerEpoch: a }),
        "a's write after b's claim",
      );
      check.deepEqual(await storage.loadSession('s1'), [event.user(1, 'from a')], 'events after the refusal');
      const summary = await summaryOf(storage, 's1');
      check.equal(summary.eventCount, 1, 'eventCount after the refusal');
      check.equal(summary.updatedAt, at(1), 'updatedAt after the refusal');
      check.deepEqual(await storage.findSessions('late write'), [], 'the refused text is not found');

      await storage.saveEvent('s1', event.assistant(3, 'from b'), { writerEpoch: b });
      await refusedAsStale(
        storage.saveEvent('s1', event.user(4, 'a again'), { writerEpoch: a }),
        "a's write after b wrote",
      );
      check.deepEqual(
        await storage.loadSession('s1'),
        [event.user(1, 'from a'), event.assistant(3, 'from b')],
        'events',
      );
    },
  },
  {
    name: 'writes of a replaced writer and of its successor in flight together: only the successor’s are stored, in order',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const a = await storage.claimWriter('s1');
      await storage.saveEvent('s1', event.user(0, 'before'), { writerEpoch: a });
      const b = await storage.claimWriter('s1');
      const fromB: SessionEvent[] = [];
      const writes: Promise<void>[] = [];
      const refusals: Promise<void>[] = [];
      for (let i = 1; i <= 50; i += 1) {
        const mine = event.toolResult(i, `b${i}`, `b${i}`);
        fromB.push(mine);
        // Not awaited: both writers' calls are in flight together, interleaved.
        refusals.push(
          refusedAsStale(
            storage.saveEvent('s1', event.toolResult(i, `a${i}`, `a${i}`), { writerEpoch: a }),
            `a's write #${i}`,
          ),
        );
        writes.push(storage.saveEvent('s1', mine, { writerEpoch: b }));
      }
      await Promise.all([...writes, ...refusals]);
      check.deepEqual(await storage.loadSession('s1'), [event.user(0, 'before'), ...fromB], 'history');
      check.equal((await summaryOf(storage, 's1')).eventCount, 51, 'eventCount');
    },
  },
  {
    name: 'a write without writerEpoch is not checked, on a claimed session and on an unclaimed one',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      await storage.claimWriter('claimed');
      await storage.claimWriter('claimed');
      await storage.saveEvent('claimed', event.user(1, 'no epoch'));
      await storage.saveEvent('claimed', event.assistant(2, 'empty options'), {});
      await storage.saveEvent('unclaimed', event.user(3, 'never claimed'));
      check.deepEqual(
        await storage.loadSession('claimed'),
        [event.user(1, 'no epoch'), event.assistant(2, 'empty options')],
        'claimed session',
      );
      check.deepEqual(await storage.loadSession('unclaimed'), [event.user(3, 'never claimed')], 'unclaimed');
    },
  },
  {
    name: 'deleteSession ends the claim: the old writer is refused, and the next claim is greater than any before',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const old = await storage.claimWriter('s1');
      await storage.saveEvent('s1', event.user(1, 'before the delete'), { writerEpoch: old });
      await storage.deleteSession('s1');
      await refusedAsStale(
        storage.saveEvent('s1', event.user(2, 'after the delete'), { writerEpoch: old }),
        'the old writer after the delete',
      );
      check.equal(await storage.loadSession('s1'), null, 'the refused write created no session');
      const next = await storage.claimWriter('s1');
      check.ok(next > old, `the claim after the delete is greater (got ${old}, then ${next})`);
      await refusedAsStale(
        storage.saveEvent('s1', event.user(3, 'old writer again'), { writerEpoch: old }),
        'the old writer after the new claim',
      );
      await storage.saveEvent('s1', event.user(4, 'new writer'), { writerEpoch: next });
      check.deepEqual(await storage.loadSession('s1'), [event.user(4, 'new writer')], 'events');
    },
  },
  {
    name: 'writer epochs are per session: a claim of one session leaves the writers of the others alone',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const a = await storage.claimWriter('a');
      const b = await storage.claimWriter('b');
      await storage.claimWriter('c');
      await storage.saveEvent('a', event.user(1, 'a'), { writerEpoch: a });
      await storage.saveEvent('b', event.user(2, 'b'), { writerEpoch: b });
      await refusedAsStale(
        storage.saveEvent('b', event.user(3, "a's epoch on b"), { writerEpoch: a }),
        "a's epoch on session b",
      );
      check.deepEqual(await storage.loadSession('a'), [event.user(1, 'a')], 'session a');
      check.deepEqual(await storage.loadSession('b'), [event.user(2, 'b')], 'session b');
    },
  },
  {
    name: 'a writerEpoch that is not a non-negative integer is rejected with INVALID_INPUT',
    async run(plain) {
      const storage = fenced(plain);
      if (!storage) return;
      const epoch = await storage.claimWriter('s1');
      for (const bad of [-1, 1.5, Number.NaN, '1', null]) {
        await check.rejects(
          () => storage.saveEvent('s1', event.user(1, 'x'), { writerEpoch: bad as number }),
          'INVALID_INPUT',
          `writerEpoch ${String(bad)}`,
        );
      }
      check.equal(await storage.loadSession('s1'), null, 'nothing stored');
      await storage.saveEvent('s1', event.user(2, 'valid'), { writerEpoch: epoch });
    },
  },
];

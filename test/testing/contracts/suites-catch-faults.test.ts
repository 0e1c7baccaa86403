/**
 * The contract suites must be able to fail: each faulty storage below breaks one rule, and the
 * case for that rule must reject it (while the faithful in-memory storages pass every case, see
 * in-memory.contract.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { AgentError, Errors } from '../../../src/errors.js';
import type { MemoryStorage, SessionStorage } from '../../../src/ports/storage.js';
import { InMemoryMemoryStorage } from '../../../src/storage/in-memory-memory-storage.js';
import { InMemorySessionStorage } from '../../../src/storage/in-memory-session-storage.js';
import type { SessionEvent, SessionPage } from '../../../src/types.js';
import type { ContractCase } from '../../../src/testing/contracts/check.js';
import { memoryStorageContract } from '../../../src/testing/contracts/memory-storage.contract.js';
import { sessionStorageContract } from '../../../src/testing/contracts/session-storage.contract.js';

function caseNamed<S>(suite: ContractCase<S>[], prefix: string): ContractCase<S> {
  const found = suite.find((c) => c.name.startsWith(prefix));
  if (!found) throw new Error(`no contract case starts with '${prefix}'`);
  return found;
}

/** An in-memory session storage with some methods replaced (the rest delegate). */
function faultySessions(
  fault: (base: InMemorySessionStorage) => Partial<SessionStorage>,
): () => SessionStorage {
  return () => {
    const base = new InMemorySessionStorage();
    const overrides = fault(base);
    return {
      saveEvent: overrides.saveEvent ?? ((id, e, o) => base.saveEvent(id, e, o)),
      loadSession: overrides.loadSession ?? ((id) => base.loadSession(id)),
      listSessions: overrides.listSessions ?? ((c, l) => base.listSessions(c, l)),
      findSessions: overrides.findSessions ?? ((q) => base.findSessions(q)),
      deleteSession: overrides.deleteSession ?? ((id) => base.deleteSession(id)),
      claimWriter: overrides.claimWriter ?? ((id) => base.claimWriter(id)),
      saveDraft: overrides.saveDraft ?? ((id, d) => base.saveDraft(id, d)),
      loadDraft: overrides.loadDraft ?? ((id) => base.loadDraft(id)),
    };
  };
}

function faultyMemories(fault: (base: InMemoryMemoryStorage) => Partial<MemoryStorage>): () => MemoryStorage {
  return () => {
    const base = new InMemoryMemoryStorage();
    const overrides = fault(base);
    return {
      search: overrides.search ?? ((ns, q, l) => base.search(ns, q, l)),
      save: overrides.save ?? ((m) => base.save(m)),
      delete: overrides.delete ?? ((id) => base.delete(id)),
    };
  };
}

/** Paging by offset: the classic bug the position cursor exists to avoid. */
const offsetPaging = faultySessions((base) => ({
  async listSessions(cursor, limit): Promise<SessionPage> {
    const all = (await base.listSessions(null, 1_000_000)).sessions;
    const start = cursor === null ? 0 : Number(cursor);
    const end = start + limit;
    return { sessions: all.slice(start, end), nextCursor: end < all.length ? String(end) : null };
  },
}));

const sessionFaults: [fault: string, make: () => SessionStorage, failingCase: string][] = [
  ['pages by offset', offsetPaging, 'paging stays stable'],
  [
    'returns events newest first',
    faultySessions((base) => ({
      loadSession: async (id) => (await base.loadSession(id))?.reverse() ?? null,
    })),
    'loads events in append order',
  ],
  [
    'hands out its stored objects',
    faultySessions((base) => {
      const shared = new Map<string, SessionEvent[] | null>();
      return {
        async loadSession(id) {
          if (!shared.has(id)) shared.set(id, await base.loadSession(id));
          return shared.get(id) ?? null;
        },
      };
    }),
    'stored data is immune',
  ],
  [
    'accepts invalid events silently',
    faultySessions((base) => ({
      saveEvent: (id, e) => base.saveEvent(id, e).catch(() => undefined),
    })),
    'an invalid event is rejected',
  ],
  [
    'always returns a nextCursor',
    faultySessions((base) => ({
      listSessions: async (c, l) => {
        const page = await base.listSessions(c, l);
        return { ...page, nextCursor: page.nextCursor ?? c ?? 'end' };
      },
    })),
    'listSessions pages by limit',
  ],
  [
    'finds case-sensitively',
    faultySessions((base) => ({
      findSessions: async (q) => (q === q.toLowerCase() ? base.findSessions(q) : []),
    })),
    'findSessions matches title',
  ],
  [
    'throws synchronously on a bad limit',
    faultySessions((base) => ({
      listSessions: (c, l) => {
        if (!Number.isInteger(l)) throw new AgentError('INVALID_INPUT', 'sync');
        return base.listSessions(c, l);
      },
    })),
    'listSessions rejects a limit',
  ],
];

/** Epochs counted per session from zero, forgotten on delete: a claim after a delete repeats one. */
const epochsRestartAfterDelete = faultySessions((base) => {
  const epochs = new Map<string, number>();
  return {
    async claimWriter(id) {
      await base.claimWriter(id);
      const epoch = (epochs.get(id) ?? 0) + 1;
      epochs.set(id, epoch);
      return epoch;
    },
    async saveEvent(id, e, o) {
      if (o?.writerEpoch !== undefined && o.writerEpoch !== epochs.get(id))
        throw Errors.storage('stale', Errors.writerReplaced(id));
      await base.saveEvent(id, e);
    },
    async deleteSession(id) {
      epochs.delete(id);
      await base.deleteSession(id);
    },
  };
});

const fencingAndDraftFaults: [fault: string, make: () => SessionStorage, failingCase: string][] = [
  [
    'does not check the writer epoch',
    faultySessions((base) => ({ saveEvent: (id, e) => base.saveEvent(id, e) })),
    'a stale writer is refused',
  ],
  [
    'refuses a stale write without the SESSION_WRITER_REPLACED cause',
    faultySessions((base) => ({
      saveEvent: (id, e, o) =>
        base.saveEvent(id, e, o).catch((error: unknown) => {
          throw Errors.storage('refused', AgentError.isInstance(error) ? undefined : error);
        }),
    })),
    'a stale writer is refused',
  ],
  ['restarts epochs after a delete', epochsRestartAfterDelete, 'deleteSession ends the claim'],
  [
    'ignores a null draft',
    faultySessions((base) => ({
      saveDraft: async (id, d) => (d === null ? undefined : base.saveDraft(id, d)),
    })),
    'drafts: none at first',
  ],
  [
    'keeps the draft when its session is deleted',
    faultySessions((base) => ({
      async deleteSession(id) {
        const kept = await base.loadDraft(id);
        await base.deleteSession(id);
        await base.saveDraft(id, kept);
      },
    })),
    'deleteSession removes the draft',
  ],
  [
    'has saveDraft without loadDraft',
    () => {
      const storage: SessionStorage = faultySessions(() => ({}))();
      delete (storage as { loadDraft?: unknown }).loadDraft;
      return storage;
    },
    'drafts: none at first',
  ],
];

const memoryFaults: [fault: string, make: () => MemoryStorage, failingCase: string][] = [
  [
    'ignores the query',
    faultyMemories((base) => ({ search: (ns, _q, l) => base.search(ns, '', l) })),
    'ranks the best keyword match first',
  ],
  [
    'does not search tags',
    faultyMemories((base) => ({
      save: (m) => base.save({ ...m, tags: [] }),
    })),
    'tags are searchable',
  ],
  [
    'rejects deleting an unknown id',
    faultyMemories((base) => {
      const ids = new Set<string>();
      return {
        save: async (m) => {
          await base.save(m);
          ids.add(m.id);
        },
        delete: async (id) => {
          if (!ids.delete(id)) throw new AgentError('STORAGE_ERROR', 'unknown id');
          await base.delete(id);
        },
      };
    }),
    'delete removes a memory and is idempotent',
  ],
];

/**
 * The case fails on the fault: a check's failure or the storage's own rejection, not a crash (a
 * `TypeError` of a broken case or fake would pass a plain `rejects.toThrow()` too).
 */
async function expectCaught(run: Promise<void>): Promise<void> {
  const error = await run.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error, 'the case passed on a faulty storage').toBeInstanceOf(Error);
  for (const crash of [TypeError, ReferenceError, RangeError, SyntaxError]) {
    expect(error, `the case crashed: ${String(error)}`).not.toBeInstanceOf(crash);
  }
}

describe('the SessionStorage contract rejects faulty storages', () => {
  for (const [fault, make, failing] of sessionFaults) {
    it(`a storage that ${fault} fails '${failing}…'`, async () => {
      await expectCaught(caseNamed(sessionStorageContract, failing).run(make()));
    });
  }
});

describe('the SessionStorage contract rejects storages that break fencing or drafts', () => {
  for (const [fault, make, failing] of fencingAndDraftFaults) {
    it(`a storage that ${fault} fails '${failing}…'`, async () => {
      await expectCaught(caseNamed(sessionStorageContract, failing).run(make()));
    });
  }
});

describe('the MemoryStorage contract rejects faulty storages', () => {
  for (const [fault, make, failing] of memoryFaults) {
    it(`a storage that ${fault} fails '${failing}…'`, async () => {
      await expectCaught(caseNamed(memoryStorageContract, failing).run(make()));
    });
  }
});

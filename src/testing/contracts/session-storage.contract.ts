/**
 * The contract every {@link SessionStorage} must meet, written once and run against each
 * implementation: under vitest in Node, and inside a real browser page. Framework-agnostic:
 * each case takes a fresh, empty storage and rejects (throws) when the storage breaks a rule.
 *
 * Paging guarantee checked here (see `src/storage/cursor.ts`): while a client pages from `null`
 * to the end, every session that is not changed meanwhile comes exactly once and in order, and
 * no session comes twice; a session created or updated meanwhile may be missed by that pass.
 *
 * The optional members have cases of their own, run when the storage has the member: writer
 * fencing (`claimWriter` with `saveEvent(..., { writerEpoch })`) and drafts (`saveDraft` with
 * `loadDraft`). A storage without them passes those cases untouched.
 *
 * It is one file on purpose, longer than the rest: the cases are the contract, read top to bottom
 * like a specification, and they share their event fixtures.
 * @module
 */
import { AgentError } from '../../errors.js';
import type { SessionDraft, SessionStorage } from '../../ports/storage.js';
import type { ContentBlock, SessionEvent, SessionSummary } from '../../types.js';
import { check, type ContractCase } from './check.js';

export type { ContractCase } from './check.js';

const BASE_TIME = Date.UTC(2024, 0, 1, 9, 0, 0);

/** ISO timestamp `seconds` after a fixed base time (UTC, millisecond form). */
function at(seconds: number): string {
  return new Date(BASE_TIME + seconds * 1000).toISOString();
}

function text(value: string): ContentBlock {
  return { type: 'text', text: value };
}

const event = {
  user: (seconds: number, ...blocks: (string | ContentBlock)[]): SessionEvent => ({
    timestamp: at(seconds),
    payload: {
      type: 'user_message',
      content: blocks.map((block) => (typeof block === 'string' ? text(block) : block)),
    },
  }),
  assistant: (seconds: number, value: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'assistant_message', content: [text(value)], status: 'complete' },
  }),
  toolCall: (seconds: number, callId: string, args: unknown): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'tool_call', callId, toolName: 'lookup', arguments: args },
  }),
  toolResult: (seconds: number, callId: string, content: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'tool_result', callId, content, isError: false },
  }),
  system: (seconds: number, content: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'system_message', content },
  }),
  config: (seconds: number, modelId: string): SessionEvent => ({
    timestamp: at(seconds),
    payload: { type: 'metadata', key: 'session_config', value: { modelId } },
  }),
};

const IMAGE: ContentBlock = { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' };

/** Saves one user message per id, at the given seconds (so `updatedAt` is known). */
async function seed(storage: SessionStorage, sessions: [id: string, seconds: number][]) {
  for (const [id, seconds] of sessions) await storage.saveEvent(id, event.user(seconds, `hello ${id}`));
}

/** Every page from `null` to the end, with `limit` per page. */
async function allPages(storage: SessionStorage, limit: number): Promise<SessionSummary[][]> {
  const pages: SessionSummary[][] = [];
  let cursor: string | null = null;
  do {
    const page = await storage.listSessions(cursor, limit);
    pages.push(page.sessions);
    cursor = page.nextCursor;
    check.ok(pages.length <= 1000, 'paging did not end');
  } while (cursor !== null);
  return pages;
}

async function summaryOf(storage: SessionStorage, id: string): Promise<SessionSummary> {
  const { sessions } = await storage.listSessions(null, 1000);
  const summary = sessions.find((candidate) => candidate.id === id);
  check.ok(summary !== undefined, `session '${id}' is not listed`);
  return summary;
}

function ids(summaries: readonly SessionSummary[]): string[] {
  return summaries.map((summary) => summary.id);
}

type Fenced = SessionStorage & Required<Pick<SessionStorage, 'claimWriter'>>;
type WithDrafts = SessionStorage & Required<Pick<SessionStorage, 'saveDraft' | 'loadDraft'>>;

/** The storage, when it fences writers; `null` when it has no `claimWriter`. */
function fenced(storage: SessionStorage): Fenced | null {
  return typeof storage.claimWriter === 'function' ? (storage as Fenced) : null;
}

/** The storage, when it keeps drafts; `null` when it has neither member. Half of the pair fails. */
function withDrafts(storage: SessionStorage): WithDrafts | null {
  const save = typeof storage.saveDraft === 'function';
  const load = typeof storage.loadDraft === 'function';
  check.ok(save === load, 'saveDraft and loadDraft come together');
  return save ? (storage as WithDrafts) : null;
}

/** `write` is refused as a stale writer's: `STORAGE_ERROR` whose cause is `SESSION_WRITER_REPLACED`. */
async function refusedAsStale(write: Promise<unknown>, what: string): Promise<void> {
  const error = await check.rejects(write, 'STORAGE_ERROR', what);
  check.ok(
    AgentError.isInstance(error.cause) && error.cause.code === 'SESSION_WRITER_REPLACED',
    `${what}: expected the cause to be an AgentError SESSION_WRITER_REPLACED, got ${String(error.cause)}`,
  );
}

const draft = (turnId: string, value: string, seconds: number): SessionDraft => ({
  turnId,
  text: value,
  updatedAt: at(seconds),
});

/** The cases of the {@link SessionStorage} contract. */
export const sessionStorageContract: ContractCase<SessionStorage>[] = [
  {
    name: 'loads events in append order, not timestamp order',
    async run(storage) {
      const events = [
        event.config(0, 'model-a'),
        event.user(1, 'first'),
        event.toolCall(2, 'c1', { query: 'x', nested: { deep: [1, 2] } }),
        event.toolResult(3, 'c1', 'result'),
        event.assistant(2, 'appended later with an earlier timestamp'),
        event.system(5, 'a note'),
      ];
      for (const item of events) await storage.saveEvent('s1', item);
      check.deepEqual(await storage.loadSession('s1'), events, 'loadSession');
    },
  },
  {
    name: 'an unknown session loads as null',
    async run(storage) {
      check.equal(await storage.loadSession('missing'), null, 'loadSession(missing)');
      await storage.saveEvent('s1', event.user(0, 'hi'));
      check.equal(await storage.loadSession('missing'), null, 'loadSession(missing) with others');
      const fresh = await storage.listSessions(null, 10);
      check.deepEqual(ids(fresh.sessions), ['s1'], 'listed ids');
      check.equal(fresh.nextCursor, null, 'nextCursor');
    },
  },
  {
    name: 'empty storage lists an empty page and finds nothing',
    async run(storage) {
      check.deepEqual(await storage.listSessions(null, 5), { sessions: [], nextCursor: null });
      check.deepEqual(await storage.findSessions('anything'), []);
    },
  },
  {
    name: 'summary: title from the first user message, modelId from session_config, counts and times',
    async run(storage) {
      await storage.saveEvent('s1', event.config(10, 'gpt-test'));
      check.deepEqual(
        await summaryOf(storage, 's1'),
        {
          id: 's1',
          title: '',
          modelId: 'gpt-test',
          createdAt: at(10),
          updatedAt: at(10),
          turnCount: 0,
          eventCount: 1,
        },
        'summary before any user message',
      );
      await storage.saveEvent('s1', event.user(11, '  Plan\n the   trip ', IMAGE, 'to Kyoto\t'));
      await storage.saveEvent('s1', event.assistant(12, 'Sure.'));
      await storage.saveEvent('s1', event.toolCall(13, 'c1', {}));
      await storage.saveEvent('s1', event.toolResult(14, 'c1', 'done'));
      await storage.saveEvent('s1', event.user(15, 'A second question'));
      check.deepEqual(
        await summaryOf(storage, 's1'),
        {
          id: 's1',
          title: 'Plan the trip to Kyoto',
          modelId: 'gpt-test',
          createdAt: at(10),
          updatedAt: at(15),
          turnCount: 2,
          eventCount: 6,
        },
        'summary',
      );
    },
  },
  {
    name: 'summary: modelId is empty until session_config, and the latest session_config wins',
    async run(storage) {
      await storage.saveEvent('s1', event.user(0, 'hi'));
      check.equal((await summaryOf(storage, 's1')).modelId, '', 'modelId before config');
      await storage.saveEvent('s1', event.config(1, 'model-a'));
      await storage.saveEvent('s1', event.config(2, 'model-b'));
      check.equal((await summaryOf(storage, 's1')).modelId, 'model-b', 'modelId');
    },
  },
  {
    name: 'summary: title is cut to 80 characters without splitting one, skipping image-only messages',
    async run(storage) {
      await storage.saveEvent('s1', event.user(0, IMAGE));
      check.equal((await summaryOf(storage, 's1')).title, '', 'title of an image-only message');
      const long = `${'a'.repeat(79)}😀${'b'.repeat(30)}`;
      await storage.saveEvent('s1', event.user(1, long));
      await storage.saveEvent('s1', event.user(2, 'not the title'));
      const summary = await summaryOf(storage, 's1');
      check.equal(summary.title, `${'a'.repeat(79)}😀`, 'title');
      check.equal(summary.turnCount, 3, 'turnCount');
    },
  },
  {
    name: 'summary: times are UTC, createdAt is the first event, updatedAt never moves backwards',
    async run(storage) {
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T10:00:00+02:00',
        payload: { type: 'system_message', content: 'x' },
      });
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T09:30:00Z',
        payload: { type: 'system_message', content: 'y' },
      });
      await storage.saveEvent('s1', {
        timestamp: '2024-03-01T09:00:00Z',
        payload: { type: 'system_message', content: 'an older timestamp' },
      });
      const summary = await summaryOf(storage, 's1');
      check.equal(summary.createdAt, '2024-03-01T08:00:00.000Z', 'createdAt');
      check.equal(summary.updatedAt, '2024-03-01T09:30:00.000Z', 'updatedAt');
    },
  },
  {
    name: 'listSessions orders sessions newest update first, by instant',
    async run(storage) {
      await seed(storage, [
        ['old', 0],
        ['middle', 10],
        ['new', 20],
      ]);
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['new', 'middle', 'old']);
      await storage.saveEvent('old', event.assistant(30, 'touched'));
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['old', 'new', 'middle']);
      // 11:30+02:00 is 09:30Z: earlier than 10:00Z although its text sorts later.
      await storage.saveEvent('offset', {
        timestamp: '2024-01-01T11:30:00+02:00',
        payload: { type: 'user_message', content: [text('offset')] },
      });
      await storage.saveEvent('utc', {
        timestamp: '2024-01-01T10:00:00Z',
        payload: { type: 'user_message', content: [text('utc')] },
      });
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), [
        'utc',
        'offset',
        'old',
        'new',
        'middle',
      ]);
    },
  },
  {
    name: 'listSessions pages by limit: each session exactly once, nextCursor null iff nothing follows',
    async run(storage) {
      // Three sessions share one updatedAt: the order must still be total.
      await seed(storage, [
        ['a', 1],
        ['b', 2],
        ['c', 3],
        ['d', 3],
        ['e', 3],
        ['f', 4],
        ['g', 5],
      ]);
      const everything = ids((await storage.listSessions(null, 100)).sessions);
      check.equal(everything.length, 7, 'sessions listed');
      check.deepEqual(everything.slice(0, 2), ['g', 'f'], 'newest first');
      check.deepEqual(everything.slice(5), ['b', 'a'], 'oldest last');
      check.deepEqual([...everything.slice(2, 5)].sort(), ['c', 'd', 'e'], 'ties in the middle');

      for (const limit of [1, 2, 3, 6, 7]) {
        const pages = await allPages(storage, limit);
        check.deepEqual(ids(pages.flat()), everything, `pages of ${limit}`);
        check.equal(pages.length, Math.ceil(7 / limit), `number of pages of ${limit}`);
        for (const page of pages.slice(0, -1)) check.equal(page.length, limit, `full page of ${limit}`);
      }
      const exact = await storage.listSessions(null, 7);
      check.equal(exact.nextCursor, null, 'nextCursor when the page holds the rest exactly');
      const partial = await storage.listSessions(null, 6);
      check.ok(typeof partial.nextCursor === 'string', 'nextCursor when one session follows');
      const last = await storage.listSessions(partial.nextCursor, 6);
      check.deepEqual(ids(last.sessions), ['a'], 'last page');
      check.equal(last.nextCursor, null, 'nextCursor of the last page');
    },
  },
  {
    name: 'paging stays stable while sessions are appended to between pages',
    async run(storage) {
      const initial: [string, number][] = Array.from({ length: 10 }, (_, i) => [`s${i}`, i]);
      await seed(storage, initial);
      // Newest first: s9 … s0.
      const first = await storage.listSessions(null, 3);
      check.deepEqual(ids(first.sessions), ['s9', 's8', 's7'], 'first page');

      // Between pages: a returned session is updated, a not-yet-returned one is updated (moves
      // to the front), and a new session appears.
      await storage.saveEvent('s8', event.assistant(100, 'update of a returned session'));
      await storage.saveEvent('s3', event.assistant(101, 'update of a pending session'));
      await storage.saveEvent('new', event.user(102, 'a new session'));

      const seen = [...ids(first.sessions)];
      let cursor = first.nextCursor;
      let pages = 1;
      while (cursor !== null) {
        const page = await storage.listSessions(cursor, 3);
        seen.push(...ids(page.sessions));
        cursor = page.nextCursor;
        pages += 1;
        if (pages === 2) {
          // And once more, in the middle of the pass.
          await storage.saveEvent('s9', event.assistant(103, 'another update'));
        }
        check.ok(pages < 100, 'paging did not end');
      }
      check.equal(new Set(seen).size, seen.length, `no session twice (got ${seen.join(',')})`);
      const untouched = ['s7', 's6', 's5', 's4', 's2', 's1', 's0'];
      check.deepEqual(
        seen.filter((id) => untouched.includes(id)),
        untouched,
        'every untouched session exactly once, in order',
      );
      check.deepEqual(seen.slice(0, 3), ['s9', 's8', 's7'], 'first page unchanged');
    },
  },
  {
    name: 'findSessions matches title and message text case-insensitively, newest first',
    async run(storage) {
      await storage.saveEvent('trip', event.user(1, 'Plan the Trip to KYOTO'));
      await storage.saveEvent('capital', event.user(2, 'A question'));
      await storage.saveEvent('capital', event.assistant(3, 'The capital of France is Paris.'));
      await storage.saveEvent('weather', event.user(4, 'Forecast?'));
      await storage.saveEvent('weather', event.toolCall(5, 'c1', { city: 'Oslo' }));
      await storage.saveEvent('weather', event.toolResult(6, 'c1', 'Oslo: SUNNY and mild'));
      await storage.saveEvent('note', event.user(7, 'hello'));
      await storage.saveEvent('note', event.system(8, 'The user prefers Metric units'));

      check.deepEqual(ids(await storage.findSessions('kyoto')), ['trip'], 'title');
      check.deepEqual(ids(await storage.findSessions('trip to')), ['trip'], 'title phrase');
      check.deepEqual(ids(await storage.findSessions('FRANCE')), ['capital'], 'assistant text');
      check.deepEqual(ids(await storage.findSessions('sunny')), ['weather'], 'tool result');
      check.deepEqual(ids(await storage.findSessions('metric UNITS')), ['note'], 'system message');
      check.deepEqual(ids(await storage.findSessions('the')), ['note', 'capital', 'trip'], 'several');

      const [found] = await storage.findSessions('capital of france');
      check.deepEqual(found, await summaryOf(storage, 'capital'), 'a found session is its summary');
    },
  },
  {
    name: 'findSessions without a match, or with a blank query, finds nothing',
    async run(storage) {
      await storage.saveEvent('s1', event.user(1, 'hello world'));
      check.deepEqual(await storage.findSessions('goodbye'), [], 'no match');
      check.deepEqual(await storage.findSessions(''), [], 'empty query');
      check.deepEqual(await storage.findSessions('   '), [], 'blank query');
    },
  },
  {
    name: 'deleteSession removes events and summary, leaves others, and is idempotent',
    async run(storage) {
      await storage.saveEvent('gone', event.user(1, 'delete me'));
      await storage.saveEvent('gone', event.assistant(2, 'ok'));
      await storage.saveEvent('kept', event.user(3, 'keep me'));
      await storage.deleteSession('gone');
      check.equal(await storage.loadSession('gone'), null, 'events of the deleted session');
      check.deepEqual(ids((await storage.listSessions(null, 10)).sessions), ['kept'], 'listed');
      check.deepEqual(await storage.findSessions('delete me'), [], 'found');
      check.deepEqual(await storage.loadSession('kept'), [event.user(3, 'keep me')], 'other session');

      await storage.deleteSession('gone');
      await storage.deleteSession('never-existed');

      // A new session under the same id starts from scratch.
      await storage.saveEvent('gone', event.user(9, 'again'));
      const summary = await summaryOf(storage, 'gone');
      check.equal(summary.eventCount, 1, 'eventCount after re-creation');
      check.equal(summary.title, 'again', 'title after re-creation');
      check.equal(summary.createdAt, at(9), 'createdAt after re-creation');
    },
  },
  {
    name: 'an invalid event is rejected with INVALID_INPUT and nothing is stored',
    async run(storage) {
      const invalid: unknown[] = [
        null,
        { payload: { type: 'system_message', content: 'no timestamp' } },
        { timestamp: 'yesterday', payload: { type: 'system_message', content: 'x' } },
        { timestamp: at(0), payload: { type: 'shout', content: 'x' } },
        { timestamp: at(0), payload: { type: 'system_message', content: 42 } },
        { timestamp: at(0), payload: { type: 'user_message', content: 'not blocks' } },
        { timestamp: at(0), payload: { type: 'system_message', content: 'x', extra: true } },
        { timestamp: at(0), payload: { type: 'system_message', content: 'x' }, extra: 1 },
      ];
      for (const [index, value] of invalid.entries()) {
        await check.rejects(
          () => storage.saveEvent('bad', value as SessionEvent),
          'INVALID_INPUT',
          `invalid event #${index}`,
        );
      }
      check.equal(await storage.loadSession('bad'), null, 'events of a session with only invalid events');
      check.deepEqual(await storage.listSessions(null, 10), { sessions: [], nextCursor: null });

      await storage.saveEvent('good', event.user(1, 'valid'));
      await check.rejects(
        () => storage.saveEvent('good', invalid[2] as SessionEvent),
        'INVALID_INPUT',
        'invalid event into an existing session',
      );
      check.deepEqual(await storage.loadSession('good'), [event.user(1, 'valid')], 'existing session');
      check.equal((await summaryOf(storage, 'good')).eventCount, 1, 'eventCount');
    },
  },
  {
    name: 'listSessions rejects a limit that is not a positive integer',
    async run(storage) {
      await seed(storage, [['s1', 1]]);
      for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '3']) {
        await check.rejects(
          () => storage.listSessions(null, limit as number),
          'INVALID_INPUT',
          `limit ${String(limit)}`,
        );
      }
    },
  },
  {
    name: 'listSessions rejects a cursor it did not make',
    async run(storage) {
      await seed(storage, [
        ['s1', 1],
        ['s2', 2],
      ]);
      // base64url of '{"x":1}', of 'not json', and a JSON number.
      for (const cursor of ['', 'not a cursor!', 'eyJ4IjoxfQ', 'bm90IGpzb24', 'NDI', '%%%']) {
        await check.rejects(() => storage.listSessions(cursor, 1), 'INVALID_INPUT', `cursor '${cursor}'`);
      }
    },
  },
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
  {
    name: 'drafts: none at first, saved, overwritten, cleared with null, per session',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      check.equal(await storage.loadDraft('s1'), null, 'no draft of an unknown session');
      await storage.saveEvent('s1', event.user(0, 'hi'));
      await storage.saveEvent('s2', event.user(0, 'hello'));
      check.equal(await storage.loadDraft('s1'), null, 'no draft yet');
      await storage.saveDraft('s1', draft('t1', 'Hel', 1));
      await storage.saveDraft('s2', draft('t9', 'other session', 1));
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'Hel', 1), 'saved');
      await storage.saveDraft('s1', draft('t1', 'Hello, wor', 2));
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'Hello, wor', 2), 'overwritten');
      await storage.saveDraft('s1', null);
      check.equal(await storage.loadDraft('s1'), null, 'cleared');
      await storage.saveDraft('s1', null);
      check.deepEqual(await storage.loadDraft('s2'), draft('t9', 'other session', 1), 'the other session');
      check.deepEqual(await storage.loadSession('s1'), [event.user(0, 'hi')], 'events untouched by drafts');
      check.equal((await summaryOf(storage, 's1')).eventCount, 1, 'eventCount untouched by drafts');
    },
  },
  {
    name: 'deleteSession removes the draft, and leaves the drafts of other sessions',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      await storage.saveEvent('gone', event.user(0, 'bye'));
      await storage.saveDraft('gone', draft('t1', 'half a sentence', 1));
      await storage.saveDraft('kept', draft('t2', 'kept', 1));
      await storage.deleteSession('gone');
      check.equal(await storage.loadDraft('gone'), null, 'draft of the deleted session');
      check.deepEqual(await storage.loadDraft('kept'), draft('t2', 'kept', 1), 'other draft');
    },
  },
  {
    name: 'drafts are stored as copies and an invalid draft is rejected with INVALID_INPUT',
    async run(plain) {
      const storage = withDrafts(plain);
      if (!storage) return;
      const saved = draft('t1', 'original', 1);
      await storage.saveDraft('s1', saved);
      saved.text = 'changed';
      const loaded = await storage.loadDraft('s1');
      check.deepEqual(loaded, draft('t1', 'original', 1), 'after mutating the saved draft');
      loaded!.text = 'changed';
      check.deepEqual(
        await storage.loadDraft('s1'),
        draft('t1', 'original', 1),
        'after mutating a loaded one',
      );
      const invalid: unknown[] = [
        { turnId: 't1', text: 'no time' },
        { turnId: 't1', text: 42, updatedAt: at(1) },
        { turnId: 't1', text: 'x', updatedAt: 'yesterday' },
        'text',
      ];
      for (const [index, value] of invalid.entries()) {
        await check.rejects(
          () => storage.saveDraft('s1', value as SessionDraft),
          'INVALID_INPUT',
          `invalid draft #${index}`,
        );
      }
      check.deepEqual(await storage.loadDraft('s1'), draft('t1', 'original', 1), 'after the invalid drafts');
    },
  },
];

/**
 * A follower on the other instance: a `RemoteSession` on instance B watches a session that
 * instance A holds and runs turns in (both on one real PostgreSQL database). B never takes the
 * session over; its follower sees every stored message in order, the running turn's partial
 * text while it runs (A's draft), and ends with A's conversation.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Conversation, ConversationItem } from '../../src/index.js';
import { useDatabase } from '../postgres/support/server.js';
import { remoteFor } from './support.js';
import { eventOf, eventually, instancesWorld, post, within } from './instances-world.js';
import { expectCleanHistory, startInstance, type Instance } from './postgres-instances.js';

const database = useDatabase();
const observer = database.pool({ application_name: 'observer' });
const running: Instance[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((i) => i.server.close()));
});
afterAll(() => observer.end());

/** What a follower shows of an item: its kind and text (ids differ between a live and a stored view). */
const shown = (item: ConversationItem) =>
  item.kind === 'user'
    ? `user: ${item.content.map((c) => (c.type === 'text' ? c.text : '')).join('')}`
    : item.kind === 'assistant'
      ? `assistant: ${item.text}`
      : item.kind === 'tool'
        ? `tool ${item.callId}: ${item.status}`
        : `notice: ${item.text}`;

/** The finished items (a streaming answer aside). */
const settledItems = (conversation: Conversation) =>
  conversation.items.filter((item) => !(item.kind === 'assistant' && item.status === 'streaming')).map(shown);

describe('a follower on the other instance', () => {
  it('sees every stored message in order, the running turn’s partial text, and ends equal', async () => {
    const schema = 'follow_1';
    const world = instancesWorld();
    const shared = { database, observer, schema, provider: world.provider, tools: [world.transfer] };
    const a = await startInstance('A', shared);
    const b = await startInstance('B', shared);
    running.push(a, b);
    const onA = await remoteFor(a.server.url, 'alice').newSession();
    await (
      await onA.sendMessage('say 0')
    ).result;

    const follower = await remoteFor(b.server.url, 'alice').resumeSession(onA.id);
    const seen: Conversation[] = [];
    const sub = follower.conversation.subscribe((c) => seen.push(c));
    const latest = () => seen.at(-1)!;

    // A turn held open on A: B's follower shows its partial text while it runs.
    const hanging = await onA.sendMessage('hang 1');
    await eventOf(hanging, 'text_delta');
    await eventually(async () =>
      latest().items.some(
        (i) => i.kind === 'assistant' && i.status === 'streaming' && i.text === 'thinking 1',
      ),
    );
    expect(latest().turn?.id).toBe(hanging.id);
    world.hold('1').resolve();
    expect((await within(hanging.result, 'the held turn')).status).toBe('completed');

    // A turn with an approval, decided on A; then a plain one.
    const paying = await onA.sendMessage('pay 2');
    await eventOf(paying, 'approval_requested');
    expect(
      (await post(a.server, `/sessions/${onA.id}/turns/${paying.id}/approvals/pay-2`, { approved: true }))
        .status,
    ).toBe(204);
    expect((await within(paying.result, 'the paying turn')).status).toBe('completed');
    expect((await (await onA.sendMessage('say 3')).result).status).toBe('completed');

    // The follower ends where A is, without having taken anything over.
    const final = await new Promise<Conversation>((resolve) => {
      const done = onA.conversation.subscribe((c) => {
        if (c.turn !== null) return;
        resolve(c);
        queueMicrotask(() => done.unsubscribe());
      });
    });
    await eventually(
      async () => latest().turn === null && settledItems(latest()).length === settledItems(final).length,
    );
    sub.unsubscribe();
    expect(settledItems(latest())).toEqual(settledItems(final));
    const { rows } = await observer.query<{ holder: string }>(`SELECT holder FROM "${schema}".locks`);
    expect({ holders: rows.map((r) => r.holder) }).toEqual({ holders: ['A'] });
    // In order: every state the follower showed begins the final list (a tool's status aside,
    // which goes from awaiting approval to done), nothing missing between, nothing repeated.
    const withoutStatus = (items: string[]) => items.map((item) => item.replace(/^(tool \S+): .*$/, '$1'));
    const order = withoutStatus(settledItems(final));
    seen.forEach((state, index) => {
      const items = withoutStatus(settledItems(state));
      expect({ index, items: order.slice(0, items.length) }).toEqual({ index, items });
    });
    expect(seen.length).toBeGreaterThan(3);
    await expectCleanHistory(observer, schema, onA.id);
  });

  it('follows on when its own instance takes the session over: it then shows the live copy', async () => {
    const schema = 'follow_2';
    const world = instancesWorld();
    const shared = { database, observer, schema, provider: world.provider, tools: [world.transfer] };
    const a = await startInstance('A', shared);
    const b = await startInstance('B', shared);
    running.push(a, b);
    const onA = await remoteFor(a.server.url, 'alice').newSession();
    await (
      await onA.sendMessage('say 0')
    ).result;
    const follower = await remoteFor(b.server.url, 'alice').resumeSession(onA.id);
    const seen: Conversation[] = [];
    const sub = follower.conversation.subscribe((c) => seen.push(c));
    // Another client of B runs a turn there: B takes the session over from A.
    const onB = await remoteFor(b.server.url, 'alice').resumeSession(onA.id);
    const hanging = await onB.sendMessage('hang 1');
    await eventOf(hanging, 'text_delta');
    // The follower's stream from storage ends; it reconnects to B's live copy, deltas included.
    await eventually(async () =>
      seen
        .at(-1)!
        .items.some((i) => i.kind === 'assistant' && i.status === 'streaming' && i.text === 'thinking 1'),
    );
    world.hold('1').resolve();
    expect((await within(hanging.result, 'the turn on B')).status).toBe('completed');
    await eventually(async () => seen.at(-1)!.turn === null && settledItems(seen.at(-1)!).length === 4);
    sub.unsubscribe();
    expect(settledItems(seen.at(-1)!)).toEqual([
      'user: say 0',
      'assistant: said 0',
      'user: hang 1',
      'assistant: thinking 1 done',
    ]);
    await expectCleanHistory(observer, schema, onA.id);
  });
});

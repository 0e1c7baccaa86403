/**
 * `SessionChangeFeed` in Node, whose `BroadcastChannel` links the channels of one process as the
 * browser links tabs (the cross-tab run is in `test/browser/tabs.browser.test.ts`), and without
 * any `BroadcastChannel`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionChangeFeed, type SessionChange } from '../../src/index.js';
import { expectAgentError } from '../support/errors.js';

const feeds: SessionChangeFeed[] = [];
function feed(namespace?: string): SessionChangeFeed {
  const created = new SessionChangeFeed(namespace === undefined ? {} : { namespace });
  feeds.push(created);
  return created;
}

afterEach(() => {
  for (const f of feeds.splice(0)) f.close();
  vi.unstubAllGlobals();
});

function collect(from: SessionChangeFeed): SessionChange[] {
  const received: SessionChange[] = [];
  from.changes.subscribe((change) => received.push(change));
  return received;
}

/** Posts raw messages on a namespace's channel, as another release (or anything else) might. */
function postRaw(namespace: string, ...messages: unknown[]): void {
  const channel = new BroadcastChannel(`youyou-agent:${namespace}`);
  for (const message of messages) channel.postMessage(message);
  channel.close();
}

describe('SessionChangeFeed', () => {
  it("delivers another feed's posts on the same namespace, in order, and not its own", async () => {
    const [a, b, elsewhere] = [feed('app'), feed('app'), feed('other-app')];
    const [toA, toB, toElsewhere] = [collect(a), collect(b), collect(elsewhere)];
    b.post({ sessionId: 's1', kind: 'locked' });
    b.post({ sessionId: 's1', kind: 'appended' });
    b.post({ sessionId: 's1', kind: 'released' });
    await vi.waitFor(() => expect(toA).toHaveLength(3));
    expect(toA).toEqual([
      { sessionId: 's1', kind: 'locked' },
      { sessionId: 's1', kind: 'appended' },
      { sessionId: 's1', kind: 'released' },
    ]);
    expect(toB).toEqual([]);
    expect(toElsewhere).toEqual([]);
    expect(a.channelName).toBe('youyou-agent:app');
    expect(feed().channelName).toBe('youyou-agent:default');
  });

  it('ignores messages that are not valid changes, and drops unknown extra fields', async () => {
    const a = feed('validated');
    const received = collect(a);
    postRaw(
      'validated',
      { v: 2, sessionId: 's1', kind: 'appended' },
      { v: 1, sessionId: '', kind: 'appended' },
      { v: 1, sessionId: 's1', kind: 'renamed' },
      { sessionId: 's1', kind: 'appended' },
      'appended',
      null,
      { v: 1, sessionId: 's2', kind: 'deleted', lastSeq: 7 },
    );
    await vi.waitFor(() => expect(received).toHaveLength(1));
    expect(received).toEqual([{ sessionId: 's2', kind: 'deleted' }]);
  });

  it('close() completes changes and stops posting; later posts are ignored', async () => {
    const [a, b] = [feed('closing'), feed('closing')];
    const received = collect(a);
    let completed = false;
    b.changes.subscribe({ complete: () => (completed = true) });
    b.close();
    b.close();
    expect(completed).toBe(true);
    b.post({ sessionId: 's1', kind: 'appended' });
    feed('closing').post({ sessionId: 'after', kind: 'appended' });
    await vi.waitFor(() => expect(received).toHaveLength(1));
    expect(received).toEqual([{ sessionId: 'after', kind: 'appended' }]);
  });

  it('rejects posting an invalid change with INVALID_INPUT', async () => {
    const a = feed('posting');
    await expectAgentError(() => a.post({ sessionId: '', kind: 'appended' }), 'INVALID_INPUT', 'sessionId');
    await expectAgentError(() => a.post({ sessionId: 's1', kind: 'gone' as never }), 'INVALID_INPUT', 'kind');
  });

  it('without BroadcastChannel, posts go nowhere and changes never emits, until close completes it', () => {
    vi.stubGlobal('BroadcastChannel', undefined);
    const alone = new SessionChangeFeed({ namespace: 'nowhere' });
    const received: SessionChange[] = [];
    let completed = false;
    alone.changes.subscribe({ next: (c) => received.push(c), complete: () => (completed = true) });
    alone.post({ sessionId: 's1', kind: 'appended' });
    alone.close();
    expect(received).toEqual([]);
    expect(completed).toBe(true);
  });
});

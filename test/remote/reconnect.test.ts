/**
 * A dropped connection loses and repeats nothing: a TCP proxy cuts the turn's event stream
 * mid-answer several times; the client reconnects from the last frame it applied, so every event
 * arrives once, the text assembles once, and `turn.result` settles. Closing a stream is not a
 * cancel; `cancel()` is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { AgentEvent, Conversation } from '../../src/index.js';
import { ScriptedModelProvider, type ScriptItem } from '../../src/testing/index.js';
import { CuttingProxy } from '../support/cutting-proxy.js';
import { deferred } from '../support/waits.js';
import { remoteFor, startHandler, type RunningServer } from '../server/support.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A long answer, one word per delta, with a pause between deltas so that cuts land mid-answer. */
function slowAnswer(words: number, pauseMs = 2): { items: ScriptItem[]; text: string } {
  const items: ScriptItem[] = [];
  let text = '';
  for (let i = 0; i < words; i++) {
    items.push({ type: 'text_delta', text: `w${i} ` }, { type: 'delay', ms: pauseMs });
    text += `w${i} `;
  }
  items.push({ type: 'done', finishReason: 'stop' });
  return { items, text };
}

async function setUp(plan: (number | undefined)[], script: ScriptItem[][]) {
  const provider = new ScriptedModelProvider({ script });
  const server: RunningServer = await startHandler({ provider });
  open.push(server);
  const port = (server.server.address() as AddressInfo).port;
  const proxy = await CuttingProxy.start(port, plan);
  open.push(proxy);
  return { server, proxy, agent: remoteFor(`${proxy.origin}/agent`, 'alice') };
}

describe('a stream cut mid-answer', () => {
  it('is taken up again from the last frame, five times in one answer: every event once, the text once', async () => {
    // A delta is one short frame (about 40 bytes here): five streams cut after 1,000 bytes each
    // (some 20 deltas, and a reconnect's wait) all end long before the answer does. (The frames
    // of a turn are dropped once it ends, so a cut after the end would lose its last events.)
    const { items, text } = slowAnswer(300, 8);
    const { proxy, agent } = await setUp([1_000, 1_000, 1_000, 1_000, 1_000], [items]);
    const session = await agent.newSession();
    let conversation!: Conversation;
    session.conversation.subscribe((c) => (conversation = c));
    const turn = await session.sendMessage('Count for me');
    const events: AgentEvent[] = [];
    turn.events.subscribe((e) => events.push(e));
    const result = await turn.result;

    expect(proxy.cuts).toBe(5);
    expect(proxy.streams).toBeGreaterThanOrEqual(6);
    expect(result.status).toBe('completed');
    const sequences = events.map((e) => e.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
    expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
    const streamed = events.flatMap((e) => (e.payload.type === 'text_delta' ? [e.payload.text] : []));
    expect(streamed.join('')).toBe(text);
    expect(events.at(-1)?.payload.type).toBe('turn_complete');
    const answer = conversation.items.find((i) => i.kind === 'assistant');
    expect(answer).toMatchObject({ text: text, status: 'complete' });
    expect(conversation.turn).toBeNull();
    await session.close();
  });

  it('closing the stream does not cancel the turn; cancel() does', async () => {
    const release = deferred();
    const { proxy, agent } = await setUp(
      [],
      [
        [
          { type: 'text_delta', text: 'Half ' },
          { type: 'wait', until: release.promise },
          { type: 'text_delta', text: 'done.' },
          { type: 'done', finishReason: 'stop' },
        ],
        [
          { type: 'text_delta', text: 'Never ' },
          { type: 'wait', until: new Promise(() => {}) },
        ],
      ],
    );
    const session = await agent.newSession();
    const first = await session.sendMessage('Go');
    const seen: string[] = [];
    first.events.subscribe((e) => e.payload.type === 'text_delta' && seen.push(e.payload.text));
    await new Promise<void>((resolve) => {
      const sub = first.events.subscribe((e) => e.payload.type === 'text_delta' && resolve());
      void sub;
    });
    proxy.cutAll(); // the client's stream is gone; the turn must go on
    release.resolve();
    expect((await first.result).status).toBe('completed');
    // The turn ended while the stream was down: its frames are gone, the state shows its text,
    // and its events were seen at most once.
    expect('Half done.'.startsWith(seen.join(''))).toBe(true);
    expect(seen.join('')).not.toBe('');

    const second = await session.sendMessage('Again');
    await new Promise<void>((resolve) =>
      second.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    second.cancel();
    const result = await second.result;
    expect(result.status).toBe('cancelled');
    await session.close();
  });

  it("a follower's stream cut twice mid-answer still ends with the runner's conversation", async () => {
    const { items, text } = slowAnswer(200);
    // Only the follower goes through the proxy: its first two streams are cut.
    const { proxy, server } = await setUp([2_500, 2_500], [items]);
    const runner = await remoteFor(server.url, 'alice').newSession();
    let onRunner!: Conversation;
    runner.conversation.subscribe((c) => (onRunner = c));
    const turn = await runner.sendMessage('Count');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    const follower = await remoteFor(`${proxy.origin}/agent`, 'alice').resumeSession(runner.id);
    let onFollower!: Conversation;
    const done = new Promise<void>((resolve) =>
      follower.conversation.subscribe((c) => {
        onFollower = c;
        if (c.turn === null && c.items.some((i) => i.kind === 'assistant' && i.status === 'complete'))
          resolve();
      }),
    );
    await turn.result;
    await done;
    expect(proxy.cuts).toBe(2);
    expect(onFollower).toEqual(onRunner);
    expect(onFollower.items.find((i) => i.kind === 'assistant')).toMatchObject({ text });
    await runner.close();
  });
});

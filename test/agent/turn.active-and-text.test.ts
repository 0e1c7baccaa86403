/**
 * `session.activeTurn` is the turn that runs now (and, after a reload, the one `continueTurn()`
 * returns running); `turn.textStream` yields the answer's text deltas from the turn's start,
 * also when iterated late, and ends at the turn's end — also on a cancel.
 */
import { describe, expect, it } from 'vitest';
import type { RunningTurn } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { createTestAgent } from '../support/agent.js';
import { storedAfterClose } from '../support/history.js';
import { deferred } from '../support/waits.js';

const deltasOf = (turn: RunningTurn) => {
  const texts: string[] = [];
  turn.events.subscribe(({ payload }) => payload.type === 'text_delta' && texts.push(payload.text));
  return texts;
};

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const texts: string[] = [];
  for await (const text of stream) texts.push(text);
  return texts;
}

describe('textStream', () => {
  it('yields the same text as the deltas and ends at the turn end, also when iterated after it', async () => {
    const { agent } = await createTestAgent({ script: [reply.text('Hello there, friend', { chunks: 4 })] });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const deltas = deltasOf(turn);
    const live = collect(turn.textStream);
    await turn.result;
    expect(await live).toEqual(deltas);
    expect(deltas.join('')).toBe('Hello there, friend');
    expect(deltas.length).toBeGreaterThan(1);
    expect(await collect(turn.textStream)).toEqual(deltas);
    await session.close();
  });

  it('ends on a cancel with the text so far', async () => {
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'Half' },
          { type: 'wait', until: new Promise(() => {}) },
        ],
      ],
    });
    const session = await agent.newSession();
    const turn = await session.sendMessage('hi');
    const texts: string[] = [];
    for await (const text of turn.textStream) {
      texts.push(text);
      turn.cancel();
    }
    expect(texts).toEqual(['Half']);
    expect((await turn.result).status).toBe('cancelled');
    await session.close();
  });
});

describe('activeTurn', () => {
  it('is the running turn, and null before and after it', async () => {
    const release = deferred();
    const { agent } = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'One' },
          { type: 'wait', until: release.promise },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const session = await agent.newSession();
    expect(session.activeTurn).toBeNull();
    const turn = await session.sendMessage('hi');
    expect(session.activeTurn).toBe(turn);
    release.resolve();
    await turn.result;
    expect(session.activeTurn).toBeNull();
    await session.close();
  });

  it('after a reload is null; continueTurn() returns the interrupted turn running and activeTurn is it', async () => {
    const first = await createTestAgent({
      script: [
        [
          { type: 'text_delta', text: 'Partial' },
          { type: 'wait', until: new Promise(() => {}) },
        ],
      ],
    });
    const page = await first.agent.newSession();
    const cut = await page.sendMessage('hi');
    await new Promise<void>((resolve) =>
      cut.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );
    const storage = await storedAfterClose(first.sessionStorage!, page.id);

    const release = deferred();
    const second = await createTestAgent({
      sessionStorage: storage,
      script: [
        [
          { type: 'text_delta', text: ' and the rest' },
          { type: 'wait', until: release.promise },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const resumed = await second.agent.resumeSession(page.id);
    expect(resumed.interruptedTurn?.turnId).toBe(cut.id);
    expect(resumed.activeTurn).toBeNull();
    const continued = await resumed.continueTurn();
    expect(continued.id).toBe(cut.id);
    expect(resumed.activeTurn).toBe(continued);
    release.resolve();
    expect((await continued.result).status).toBe('completed');
    expect(resumed.activeTurn).toBeNull();
    await resumed.close();
  });
});

/**
 * Another device follows a running turn and ends with an equal conversation; 50 remote sessions
 * on one handler, two turns each, all at once, complete without an error.
 */
import { describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/index.js';
import { reply, ScriptedModelProvider, type ScriptItem } from '../../src/testing/index.js';
import { deferred } from '../support/waits.js';
import { remoteFor, startHandler, serversClosedAfterEach } from '../server/support.js';

const servers = serversClosedAfterEach();

/** Resolves with the first state `test` accepts. */
function until(
  states: { subscribe(next: (c: Conversation) => void): { unsubscribe(): void } },
  test: (c: Conversation) => boolean,
) {
  return new Promise<Conversation>((resolve) => {
    let done = false;
    const sub = states.subscribe((c) => {
      if (done || !test(c)) return;
      done = true;
      resolve(c);
      queueMicrotask(() => sub.unsubscribe());
    });
  });
}

describe('another device', () => {
  it('follows a running turn from the middle and ends with the same conversation', async () => {
    const halfway = deferred();
    const script: ScriptItem[][] = [
      [
        { type: 'text_delta', text: 'First half, ' },
        { type: 'wait', until: halfway.promise },
        { type: 'text_delta', text: 'second half.' },
        { type: 'done', finishReason: 'stop' },
      ],
    ];
    const server = await startHandler({ provider: new ScriptedModelProvider({ script }) });
    servers.push(server);
    const laptop = await remoteFor(server.url, 'alice').newSession();
    let onLaptop!: Conversation;
    laptop.conversation.subscribe((c) => (onLaptop = c));
    const turn = await laptop.sendMessage('Tell me');
    await new Promise<void>((resolve) =>
      turn.events.subscribe((e) => e.payload.type === 'text_delta' && resolve()),
    );

    const phone = await remoteFor(server.url, 'alice').resumeSession(laptop.id);
    const joined = await until(phone.conversation, (c) => c.turn?.id === turn.id);
    expect(joined.items.find((i) => i.kind === 'assistant')).toMatchObject({
      text: 'First half, ',
      status: 'streaming',
    });
    halfway.resolve();
    await turn.result;
    const ended = await until(
      phone.conversation,
      (c) => c.turn === null && c.items.some((i) => i.kind === 'assistant' && i.status === 'complete'),
    );
    expect(ended).toEqual(onLaptop);
    expect(ended.items.find((i) => i.kind === 'assistant')).toMatchObject({
      text: 'First half, second half.',
    });
    await laptop.close();
  });
});

describe('load', () => {
  it('50 concurrent remote sessions, two turns each, complete without error', async () => {
    const sessions = 50;
    const provider = new ScriptedModelProvider({
      script: Array.from(
        { length: sessions * 2 },
        () => (request: { messages: readonly { type: string; content?: unknown }[] }) => {
          const last = request.messages.filter((m) => m.type === 'user').at(-1) as {
            content: { text: string }[];
          };
          return reply.text(`echo: ${last.content[0]!.text}`, { chunks: 5 });
        },
      ),
    });
    const server = await startHandler({ provider });
    servers.push(server);
    const results = await Promise.all(
      Array.from({ length: sessions }, async (_, i) => {
        const agent = remoteFor(server.url, `user-${i % 7}`);
        const session = await agent.newSession();
        const statuses: string[] = [];
        for (const n of [1, 2]) {
          const turn = await session.sendMessage(`s${i} t${n}`);
          statuses.push((await turn.result).status);
        }
        const texts = session.messages.flatMap((m) =>
          m.type === 'assistant' ? m.content.map((b) => (b.type === 'text' ? b.text : '')) : [],
        );
        await session.close();
        return { statuses, texts, i };
      }),
    );
    for (const { statuses, texts, i } of results) {
      expect(statuses).toEqual(['completed', 'completed']);
      expect(texts).toEqual([`echo: s${i} t1`, `echo: s${i} t2`]);
    }
  });
});

/**
 * `RemoteTurn.textStream`: the answer's text deltas as the server streamed them, from the turn's
 * start also when iterated late, ending at the turn's end — also on a cancel.
 */
import { describe, expect, it } from 'vitest';
import { reply, ScriptedModelProvider } from '../../src/testing/index.js';
import type { RemoteTurn } from '../../src/remote.js';
import { remoteFor, serversClosedAfterEach, startHandler } from '../server/support.js';

const servers = serversClosedAfterEach();

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const texts: string[] = [];
  for await (const text of stream) texts.push(text);
  return texts;
}

const deltasOf = (turn: RemoteTurn) => {
  const texts: string[] = [];
  turn.events.subscribe(({ payload }) => payload.type === 'text_delta' && texts.push(payload.text));
  return texts;
};

describe('a remote textStream', () => {
  it('yields the same text as the deltas and ends at the turn end, also when iterated after it', async () => {
    const provider = new ScriptedModelProvider({
      script: [reply.text('Hello there, friend', { chunks: 4 })],
    });
    const server = await startHandler({ provider });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    const turn = await session.sendMessage('hi');
    const deltas = deltasOf(turn);
    const live = collect(turn.textStream);
    expect((await turn.result).status).toBe('completed');
    expect(await live).toEqual(deltas);
    expect(deltas.join('')).toBe('Hello there, friend');
    expect(await collect(turn.textStream)).toEqual(deltas);
    await session.close();
  });

  it('ends on a cancel with the text so far', async () => {
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'Half' },
          { type: 'wait', until: new Promise(() => {}) },
        ],
      ],
    });
    const server = await startHandler({ provider });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
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

/**
 * `/chat` on two instances (one storage, one lock): a chat started on A is read on B, and a
 * reconnect that lands on B while A runs the turn is 204 (B does not take the turn over); the
 * page reads the messages once the turn has ended, equal to what A's stream built.
 */
import { describe, expect, it } from 'vitest';
import type { UIMessage } from 'ai';
import { ScriptedModelProvider } from '../../src/testing/index.js';
import { SharedSessionLock } from '../support/shared-lock.js';
import { deferred } from '../support/waits.js';
import { asJson, NodeChat, recordingFetch, until } from './node-chat.js';
import { serversClosedAfterEach, startHandler, testWorld } from './support.js';

const servers = serversClosedAfterEach();

describe('/chat across instances', () => {
  it('a reconnect on the other instance is 204; the messages read there equal the live ones', async () => {
    const hold = deferred();
    const world = testWorld();
    const lock = new SharedSessionLock();
    const provider = new ScriptedModelProvider({
      script: [
        [
          { type: 'text_delta', text: 'From A, ' },
          { type: 'wait', until: hold.promise },
          { type: 'text_delta', text: 'still A.' },
          { type: 'done', finishReason: 'stop' },
        ],
      ],
    });
    const a = await startHandler({ provider, world, lock: lock.forHolder('A') });
    const b = await startHandler({ provider, world, lock: lock.forHolder('B') });
    servers.push(a, b);
    const onA = new NodeChat({
      id: 'chat-two',
      api: `${a.url}/chat`,
      userId: 'alice',
      fetch: recordingFetch().fetch,
    });
    const sending = onA.sendMessage({ text: 'Hi' });
    await until(() => onA.messages[1]?.parts.some((p) => p.type === 'text') === true, 'A streams');

    const headers = { authorization: 'Bearer alice' };
    expect((await fetch(`${b.url}/chat/chat-two/stream`, { headers })).status).toBe(204);
    expect(lock.holderOf('chat-two')).toBe('A');
    hold.resolve();
    await sending;
    const read = (await (await fetch(`${b.url}/chat/chat-two/messages`, { headers })).json()) as UIMessage[];
    expect(read).toEqual(asJson(onA.messages));
  });
});

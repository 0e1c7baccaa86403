/**
 * Frames never grow with the history: a session with 100 MiB of history (110 turns of 900 kB
 * inputs, in-memory storage) runs remote turns as a local session does — every turn completes,
 * the client's history and conversation end equal to the server's — because each turn's frames
 * carry what changed, not the history; a device that resumes it then reads its whole state in one
 * frame. And a frame over the old 8 MiB limit (one 9 MB delta) is accepted.
 */
import { describe, expect, it } from 'vitest';
import type { ChatEvent, Conversation, ModelProvider } from '../../src/index.js';
import { READS_REQUEST_ONLY } from '../../src/ports/model-provider.js';
import { reply, SCRIPTED_MODEL, ScriptedModelProvider } from '../../src/testing/index.js';
import { remoteFor, serversClosedAfterEach, startHandler } from '../server/support.js';

const servers = serversClosedAfterEach();

const TURNS = 110;
const INPUT_BYTES = 900_000;

/**
 * A model that answers every request with a short streamed text and keeps nothing of it (the
 * scripted provider keeps a deep copy of each request: 110 copies of a growing 100 MiB history
 * would not fit in a test's memory). Its window is one the history never fills: the point here
 * is size on the wire, not compaction.
 */
class ShortAnswers implements ModelProvider {
  readonly id = 'short-answers';
  readonly models = [{ ...SCRIPTED_MODEL, contextWindow: 1_000_000_000 }];
  readonly [READS_REQUEST_ONLY] = true;
  #calls = 0;
  async *chat(): AsyncGenerator<ChatEvent> {
    const n = this.#calls++;
    yield { type: 'text_delta', text: 'answer ' };
    yield { type: 'text_delta', text: String(n) };
    yield { type: 'done', finishReason: 'stop' };
  }
}

describe('a long history over HTTP', () => {
  it(`runs ${TURNS} turns of ${INPUT_BYTES / 1000} kB inputs, and a new device reads the whole state`, async () => {
    const server = await startHandler({
      provider: new ShortAnswers(),
      config: { compaction: { enabled: false } },
    });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    let conversation!: Conversation;
    session.conversation.subscribe((c) => (conversation = c));
    for (let i = 0; i < TURNS; i++) {
      const turn = await session.sendMessage(`${i} `.padEnd(INPUT_BYTES, 'x'));
      expect((await turn.result).status).toBe('completed');
    }
    expect(session.messages).toHaveLength(2 * TURNS);
    const historyBytes = session.messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    expect(historyBytes).toBeGreaterThan(99 * 1_000_000);
    const stored = (await (
      await fetch(`${server.url}/sessions/${session.id}`, { headers: { authorization: 'Bearer alice' } })
    ).json()) as { messages: unknown[]; conversation: Conversation };
    expect(session.messages).toEqual(stored.messages);
    expect(conversation).toEqual(stored.conversation);

    // Another device follows: its stream starts with the whole state, one frame of some 200 MB.
    const other = await remoteFor(server.url, 'alice').resumeSession(session.id);
    const followed = await new Promise<Conversation>((resolve) => {
      const sub = other.conversation.subscribe((c) => {
        if (c.items.length === stored.conversation.items.length) {
          resolve(c);
          queueMicrotask(() => sub.unsubscribe());
        }
      });
    });
    expect(followed).toEqual(stored.conversation);
  }, 240_000);

  it('accepts a frame over 8 MiB (a 9 MB delta)', async () => {
    const text = 'y'.repeat(9_000_000);
    const server = await startHandler({
      provider: new ScriptedModelProvider({ script: [reply.text(text)] }),
    });
    servers.push(server);
    const session = await remoteFor(server.url, 'alice').newSession();
    let conversation!: Conversation;
    session.conversation.subscribe((c) => (conversation = c));
    let streamed = 0;
    session.events.subscribe((e) => e.payload.type === 'text_delta' && (streamed += e.payload.text.length));
    const turn = await session.sendMessage('one big delta');
    expect((await turn.result).status).toBe('completed');
    expect(streamed).toBe(text.length);
    const answer = conversation.items.find((item) => item.kind === 'assistant');
    expect(answer?.kind === 'assistant' && answer.text.length).toBe(text.length);
  });
});

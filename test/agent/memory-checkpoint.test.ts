/**
 * The memory checkpoint follows one schedule whether or not the session was closed and resumed
 * in between: the turns since the last checkpoint are counted from what was stored, the same way
 * the live session counts them.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentBuilder,
  InMemoryMemoryStorage,
  InMemorySessionStorage,
  type ChatEvent,
  type ChatRequest,
  type ModelProvider,
  type Session,
} from '../../src/index.js';
import { SCRIPTED_MODEL } from '../../src/testing/index.js';

/** Answers turns with a short text (or holds one open), extraction with no memories. */
class CountingProvider implements ModelProvider {
  readonly id = 'counting';
  readonly models = [SCRIPTED_MODEL];
  extractions = 0;
  #hold: Promise<void> | null = null;

  /** The next turn request streams one delta, then waits until the turn is cancelled. */
  holdNextTurn(): void {
    this.#hold = new Promise(() => {});
  }

  async *chat(request: ChatRequest, signal: AbortSignal): AsyncIterable<ChatEvent> {
    if (request.purpose === 'memory_extraction') {
      this.extractions++;
      yield { type: 'text_delta', text: '{"memories":[]}' };
    } else {
      yield { type: 'text_delta', text: 'ok' };
      const hold = this.#hold;
      this.#hold = null;
      if (hold) {
        await Promise.race([hold, new Promise((resolve) => signal.addEventListener('abort', resolve))]);
        throw signal.reason;
      }
    }
    yield { type: 'done', finishReason: 'stop' };
  }
}

async function setup() {
  const provider = new CountingProvider();
  const storage = new InMemorySessionStorage();
  const agent = await new AgentBuilder({
    defaultModel: SCRIPTED_MODEL.id,
    memory: { namespace: 'user', checkpointInterval: 2 },
  })
    .registerModelProvider(provider)
    .registerSessionStorage(storage)
    .registerMemoryStorage(new InMemoryMemoryStorage())
    .build();
  return { agent, provider };
}

/** Runs one turn and returns how many checkpoint extractions it ran. */
async function turn(session: Session, provider: CountingProvider, cancel = false): Promise<number> {
  const before = provider.extractions;
  if (cancel) provider.holdNextTurn();
  const running = await session.sendMessage('hello');
  if (cancel) {
    await new Promise<void>((resolve) => {
      const sub = running.events.subscribe((e) => {
        if (e.payload.type === 'text_delta') {
          sub.unsubscribe();
          resolve();
        }
      });
    });
    running.cancel();
  }
  const result = await running.result;
  expect(result.status).toBe(cancel ? 'cancelled' : 'completed');
  return provider.extractions - before;
}

describe('memory checkpoint', () => {
  it('extracts at the same turns live and after a resume (turn 1 cancelled, interval 2)', async () => {
    const live = await setup();
    const session = await live.agent.newSession();
    const liveSchedule = [
      await turn(session, live.provider, true),
      await turn(session, live.provider),
      await turn(session, live.provider),
      await turn(session, live.provider),
    ];
    await live.agent.shutdown();

    const resumed = await setup();
    const first = await resumed.agent.newSession();
    const beforeClose = [await turn(first, resumed.provider, true), await turn(first, resumed.provider)];
    await first.close(); // extracts at close, which is not a checkpoint
    const again = await resumed.agent.resumeSession(first.id);
    const afterResume = [await turn(again, resumed.provider), await turn(again, resumed.provider)];
    await resumed.agent.shutdown();

    // Every second turn counts, the cancelled one included; the checkpoint runs when a turn completes.
    expect(liveSchedule).toEqual([0, 1, 0, 1]);
    expect([...beforeClose, ...afterResume]).toEqual(liveSchedule);
  });
});

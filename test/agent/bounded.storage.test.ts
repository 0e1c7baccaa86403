/**
 * A `saveEvent` that never settles cannot hang a session: after `storageTimeoutMs` it is reported
 * once and no longer awaited, and persistence stops for that Session object, so the stored order
 * is never broken and a later resume returns what was stored before the stuck write.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentBuilder,
  InMemorySessionStorage,
  type AgentEvent,
  type SessionEvent,
  type SessionStorage,
} from '../../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, reply } from '../../src/testing/index.js';

/** In-memory storage whose `saveEvent` hangs forever from the `stuckAt`-th call (1-based). */
class StuckStorage extends InMemorySessionStorage implements SessionStorage {
  calls = 0;
  constructor(private readonly stuckAt: number) {
    super();
  }
  override saveEvent(sessionId: string, event: SessionEvent): Promise<void> {
    this.calls++;
    if (this.calls >= this.stuckAt) return new Promise(() => {});
    return super.saveEvent(sessionId, event);
  }
}

async function setup(stuckAt: number, script = [reply.text('first answer'), reply.text('second answer')]) {
  const storage = new StuckStorage(stuckAt);
  const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, storageTimeoutMs: 40 })
    .registerModelProvider(new ScriptedModelProvider({ script }))
    .registerSessionStorage(storage)
    .build();
  return { agent, storage };
}

describe('a saveEvent that never settles', () => {
  it('is reported once; turn.result, close() and shutdown() still finish; later events are not written', async () => {
    // Call 1 is the session config, 2 the turn_started marker, 3 the user message, 4 the
    // answer: the answer's write hangs.
    const { agent, storage } = await setup(4);
    const session = await agent.newSession();
    const events: AgentEvent[] = [];
    session.events.subscribe((e) => events.push(e));

    const first = await (await session.sendMessage('hello')).result;
    expect(first.status).toBe('completed');
    const errors = events.filter((e) => e.payload.type === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.payload).toMatchObject({
      fatal: false,
      error: { code: 'STORAGE_ERROR', message: expect.stringContaining('did not settle within 40ms') },
    });
    // The error belongs to the turn and comes before its terminal event.
    expect(errors[0]!.turnId).toBe(events.find((e) => e.payload.type === 'turn_complete')?.turnId);

    // The conversation goes on in memory; nothing more is handed to storage.
    const callsBefore = storage.calls;
    const second = await (await session.sendMessage('again')).result;
    expect(second.status).toBe('completed');
    expect(session.messages.map((m) => m.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(storage.calls).toBe(callsBefore);
    expect(events.filter((e) => e.payload.type === 'error')).toHaveLength(1);

    await session.close();
    await agent.shutdown();

    // A later resume returns what was stored before the stuck write.
    const resumed = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
      .registerModelProvider(new ScriptedModelProvider())
      .registerSessionStorage(storage)
      .build();
    const again = await resumed.resumeSession(session.id);
    expect(again.messages).toEqual([{ type: 'user', content: [{ type: 'text', text: 'hello' }] }]);
    // Its end was never stored: the turn is interrupted, waiting for the model.
    expect(again.interruptedTurn?.reason).toBe('awaiting_model');
    await resumed.shutdown();
  });

  it('does not hang cancel(): the cancelled turn ends and reports the stuck write', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { agent } = await setup(2, [
      [
        { type: 'text_delta', text: 'partial' },
        { type: 'wait', until: held },
      ],
    ]);
    const session = await agent.newSession();
    const turn = await session.sendMessage('hello'); // the user message's write (call 2) hangs
    const codes: string[] = [];
    turn.events.subscribe((e) => {
      if (e.payload.type === 'text_delta') turn.cancel();
      if (e.payload.type === 'error') codes.push(e.payload.error.code);
    });
    const result = await turn.result;
    expect(result.status).toBe('cancelled');
    expect(codes).toEqual(['STORAGE_ERROR']);
    release();
    await agent.shutdown();
  });
});

/**
 * A cancel that lands between "the response was recorded" and "its tools ran" still leaves every
 * `tool_call` with exactly one `tool_result` — live, in storage, after resume and on the wire of
 * the next request; and a step stopped by a cancel reports nothing after the turn's terminal
 * event and starts no new work.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  AgentBuilder,
  defineTool,
  HookResult,
  InMemorySessionStorage,
  type AgentEvent,
  type HookEvent,
  type HookHandler,
  type Message,
  type RunningTurn,
} from '../../src/index.js';
import { ScriptedModelProvider, SCRIPTED_MODEL, reply } from '../../src/testing/index.js';

/** Every call answered exactly once. */
function expectPaired(messages: readonly Message[]) {
  const calls = messages.filter((m) => m.type === 'tool_call').map((m) => m.callId);
  const results = messages.filter((m) => m.type === 'tool_result').map((m) => m.callId);
  expect(results.sort()).toEqual(calls.sort());
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

async function setup(taps: { event: HookEvent; handler: HookHandler<HookEvent> }[] = []) {
  const ran: string[] = [];
  const tool = defineTool({
    name: 'write_note',
    description: 'Writes a note',
    parameters: z.object({ text: z.string() }),
    mutating: true,
    execute: async ({ arguments: { text } }) => {
      ran.push(text);
      return 'saved';
    },
  });
  const provider = new ScriptedModelProvider({
    script: [
      reply.toolCalls([{ name: 'write_note', arguments: { text: 'a' }, callId: 'call_1' }], {
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
      }),
      reply.text('next turn'),
    ],
  });
  const storage = new InMemorySessionStorage();
  const agent = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id, hookTimeoutMs: 5_000 })
    .registerModelProvider(provider)
    .registerTool(tool)
    .registerSessionStorage(storage)
    .registerPlugin({
      id: 'probe',
      displayName: 'Probe',
      description: 'Taps hooks for the test',
      apply: (ctx) => taps.forEach(({ event, handler }) => ctx.tap(event, handler)),
    })
    .build();
  const session = await agent.newSession();
  const events: AgentEvent[] = [];
  session.events.subscribe((e) => events.push(e));
  return { agent, session, provider, storage, ran, events };
}

/** After the cancelled turn: paired live, stored and resumed, and the next request is valid. */
async function expectValidAfter(h: Awaited<ReturnType<typeof setup>>, turn: RunningTurn) {
  const result = await turn.result;
  expect(result.status).toBe('cancelled');
  expect(h.ran).toEqual([]); // the tool never ran
  expectPaired(h.session.messages);
  const next = await (await h.session.sendMessage('go on')).result;
  expect(next.status).toBe('completed');
  expectPaired(h.provider.requests.at(-1)!.messages);
  const id = h.session.id;
  await h.session.close();
  await h.agent.shutdown();
  const again = await new AgentBuilder({ defaultModel: SCRIPTED_MODEL.id })
    .registerModelProvider(new ScriptedModelProvider())
    .registerSessionStorage(h.storage)
    .build();
  const resumed = await again.resumeSession(id);
  expectPaired(resumed.messages);
  expect(resumed.messages).toEqual(h.session.messages);
  await again.shutdown();
}

describe('a cancel between the recorded response and its tools', () => {
  it('from a usage subscriber', async () => {
    const h = await setup();
    const turn = await h.session.sendMessage('note a');
    turn.events.subscribe((e) => e.payload.type === 'usage' && turn.cancel());
    await expectValidAfter(h, turn);
  });

  it('while a post_request hook runs', async () => {
    const entered = gate();
    const release = gate();
    const h = await setup([
      {
        event: 'post_request',
        handler: async () => {
          entered.open();
          await release.opened;
          return HookResult.continue();
        },
      },
    ]);
    const turn = await h.session.sendMessage('note a');
    await entered.opened;
    turn.cancel();
    release.open();
    await expectValidAfter(h, turn);
  });

  it('from an error subscriber when post_request throws', async () => {
    const h = await setup([
      {
        event: 'post_request',
        handler: () => {
          throw new Error('post_request broke');
        },
      },
    ]);
    const turn = await h.session.sendMessage('note a');
    turn.events.subscribe((e) => e.payload.type === 'error' && turn.cancel());
    await expectValidAfter(h, turn);
  });
});

describe('a step stopped by a cancel', () => {
  it.each(['turn_start', 'pre_request'] as const)(
    'reports its %s hook failure to agent.unreportedErrors, not after turn_cancelled, and calls no provider',
    async (event) => {
      const entered = gate();
      const release = gate();
      const h = await setup([
        {
          event,
          handler: async () => {
            entered.open();
            await release.opened;
            throw new Error(`${event} failed late`);
          },
        },
      ]);
      const turn = await h.session.sendMessage('note a');
      await entered.opened;
      turn.cancel();
      expect((await turn.result).status).toBe('cancelled');
      release.open();
      // The stopped step's hook settles after the terminal event, through promise callbacks only:
      // once the next macrotask runs, every one of them has.
      await new Promise((resolve) => setImmediate(resolve));
      expect(h.agent.unreportedErrors).toHaveLength(1);
      expect(h.agent.unreportedErrors[0]!.message).toContain(`${event} failed late`);
      const terminal = h.events.findIndex((e) => e.payload.type === 'turn_cancelled');
      expect(h.events.slice(terminal + 1).filter((e) => e.turnId === turn.id)).toEqual([]);
      expect(h.provider.requests).toHaveLength(0);
      await h.agent.shutdown();
    },
  );
});

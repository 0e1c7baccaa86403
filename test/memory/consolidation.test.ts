/**
 * Memory consolidation, driven through the public API: a session closes, its extraction saves a
 * memory, and when the namespace then holds more than `memory.consolidateAbove` memories the model
 * is asked (purpose `memory_consolidation`) which memories to add and which ids to delete.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentBuilder,
  InMemoryMemoryStorage,
  costOf,
  type AgentEvent,
  type ChatRequest,
  type Memory,
  type ModelPricing,
} from '../../src/index.js';
import { CONSOLIDATION_MAX_MEMORIES } from '../../src/memory/consolidation.js';
import { MEMORY_CONSOLIDATION_PROMPT } from '../../src/prompt/memory-templates.js';
import { SCRIPTED_MODEL, ScriptedModelProvider, reply, type ScriptStep } from '../../src/testing/index.js';

const NAMESPACE = 'alice';
const PRICING: ModelPricing = { inputPerMillion: 2, outputPerMillion: 8 };

/** A memory of `namespace`, updated `minutes` after midnight on 1 January 2024. */
function stored(id: string, content: string, minutes: number, namespace = NAMESPACE): Memory {
  const at = new Date(Date.UTC(2024, 0, 1, 0, minutes)).toISOString();
  return { id, namespace, content, createdAt: at, updatedAt: at };
}

const EXTRACTED = reply.text('{"memories":[{"content":"The user lives in Lyon.","tags":["home"]}]}');

/**
 * An agent whose storage holds `memories`, scripted to answer one turn, then the extraction at
 * close, then whatever `after` lists (the consolidation).
 */
async function closeAfterOneTurn(options: {
  memories: Memory[];
  consolidateAbove?: number;
  extraction?: ScriptStep;
  after?: ScriptStep[];
}) {
  const provider = new ScriptedModelProvider({
    models: [{ ...SCRIPTED_MODEL, pricing: PRICING }],
    script: [reply.text('Noted.'), options.extraction ?? EXTRACTED, ...(options.after ?? [])],
  });
  const storage = new InMemoryMemoryStorage();
  for (const memory of options.memories) await storage.save(memory);
  const agent = await new AgentBuilder({
    defaultModel: SCRIPTED_MODEL.id,
    memory: {
      namespace: NAMESPACE,
      ...(options.consolidateAbove !== undefined && { consolidateAbove: options.consolidateAbove }),
    },
  })
    .registerModelProvider(provider)
    .registerMemoryStorage(storage)
    .build();
  const session = await agent.newSession();
  await (
    await session.sendMessage('I moved to Lyon.')
  ).result;
  const events: AgentEvent[] = [];
  let completed = false;
  session.events.subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
  await session.close();
  const outside = events.filter((e) => e.turnId === null);
  await agent.shutdown();
  provider.assertConsumed();
  return { provider, storage, session, outside, completed };
}

/** The memories a consolidation request lists, parsed from its JSON lines. */
function listed(request: ChatRequest): { id: string; content: string; tags?: string[]; updatedAt: string }[] {
  const [message] = request.messages;
  if (message?.type !== 'user' || message.content[0]?.type !== 'text') throw new Error('no user text');
  return message.content[0].text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { id: string; content: string; updatedAt: string });
}

async function contents(storage: InMemoryMemoryStorage, namespace = NAMESPACE): Promise<string[]> {
  return (await storage.search(namespace, '', 1000)).map((m) => m.content).sort();
}

const three = [
  stored('m-tea', 'The user likes green tea.', 1),
  stored('m-tea-again', 'The user drinks green tea every day.', 2),
  stored('m-job', 'The user works as a nurse.', 3),
];

describe('memory consolidation', () => {
  it('does not run while the namespace holds at most consolidateAbove memories', async () => {
    const { provider, storage } = await closeAfterOneTurn({
      memories: three.slice(0, 2),
      consolidateAbove: 3,
    });
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);
    expect(await storage.search(NAMESPACE, '', 10)).toHaveLength(3);
  });

  it('runs over the memories with their ids once the namespace is over, saves and deletes what it answers', async () => {
    const foreign = stored('m-bob', 'Bob likes chess.', 4, 'bob');
    const answer = JSON.stringify({
      memories: [{ content: 'The user drinks green tea every day.', tags: ['drinks'] }],
      // An id of another namespace and one that does not exist are ignored.
      delete: ['m-tea', 'm-tea-again', 'm-bob', 'no-such-id'],
    });
    const { provider, storage, session, outside } = await closeAfterOneTurn({
      memories: [...three, foreign],
      consolidateAbove: 3,
      after: [reply.text(answer, { usage: { inputTokens: 1_000, outputTokens: 100 } })],
    });

    const request = provider.requests[2]!;
    expect(request.purpose).toBe('memory_consolidation');
    expect(request.systemPrompt).toBe(MEMORY_CONSOLIDATION_PROMPT);
    expect(request.tools).toEqual([]);
    const lyon = (await storage.search(NAMESPACE, 'Lyon', 1))[0]!;
    expect(listed(request)).toEqual([
      { id: lyon.id, content: 'The user lives in Lyon.', tags: ['home'], updatedAt: lyon.updatedAt },
      ...[...three].reverse().map(({ id, content, updatedAt }) => ({ id, content, updatedAt })),
    ]);

    expect(await contents(storage)).toEqual([
      'The user drinks green tea every day.',
      'The user lives in Lyon.',
      'The user works as a nurse.',
    ]);
    const merged = (await storage.search(NAMESPACE, 'drinks', 10))[0]!;
    expect(merged).toMatchObject({ tags: ['drinks'], sourceSessionId: session.id });
    expect(merged.id).not.toBe('m-tea-again');
    expect(await contents(storage, 'bob')).toEqual(['Bob likes chess.']);

    const usage = outside.filter((e) => e.payload.type === 'usage');
    expect(usage).toEqual([
      expect.objectContaining({
        turnId: null,
        payload: expect.objectContaining({
          type: 'usage',
          usage: expect.objectContaining({ inputTokens: 1_000, outputTokens: 100 }),
          cost: costOf({ inputTokens: 1_000, outputTokens: 100, totalTokens: 1_100 }, PRICING),
        }),
      }),
    ]);
    expect(outside.filter((e) => e.payload.type === 'error')).toEqual([]);
  });

  it('uses the default threshold of 100', async () => {
    const memories = Array.from({ length: 100 }, (_, i) => stored(`m${i}`, `Fact number ${i}.`, i));
    const under = await closeAfterOneTurn({ memories: memories.slice(0, 99) });
    expect(under.provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);

    const over = await closeAfterOneTurn({ memories, after: [reply.text('{"memories":[],"delete":[]}')] });
    expect(over.provider.requests.map((r) => r.purpose)).toEqual([
      'turn',
      'memory_extraction',
      'memory_consolidation',
    ]);
    expect(await over.storage.search(NAMESPACE, '', 1000)).toHaveLength(101);
  });

  it(`lists only the newest ${CONSOLIDATION_MAX_MEMORIES} memories, and deletes none it did not list`, async () => {
    const memories = Array.from({ length: 250 }, (_, i) => stored(`m${i}`, `Fact number ${i}.`, i));
    const { provider, storage } = await closeAfterOneTurn({
      memories,
      after: [reply.text('{"memories":[],"delete":["m0","m249"]}')],
    });
    // The newest: the extracted memory, then m249 down to m51.
    const ids = listed(provider.requests[2]!).map((m) => m.id);
    expect(ids).toHaveLength(CONSOLIDATION_MAX_MEMORIES);
    expect(ids.slice(1, 3)).toEqual(['m249', 'm248']);
    expect(ids.at(-1)).toBe('m51');
    const left = (await storage.search(NAMESPACE, '', 1000)).map((m) => m.id);
    expect(left).toHaveLength(250);
    expect(left).toContain('m0');
    expect(left).not.toContain('m249');
  });

  it('does not run after an extraction that saved nothing', async () => {
    const { provider } = await closeAfterOneTurn({
      memories: three,
      consolidateAbove: 2,
      extraction: reply.text('{"memories":[]}'),
    });
    expect(provider.requests.map((r) => r.purpose)).toEqual(['turn', 'memory_extraction']);
  });

  const failures: [string, ScriptStep][] = [
    ['an answer that is not JSON', reply.text('These memories look fine to me.')],
    ['JSON without "delete"', reply.text('{"memories":[{"content":"The user likes tea."}]}')],
    ['a memory without content', reply.text('{"memories":[{"tags":["tea"]}],"delete":["m-tea"]}')],
    ['a provider that throws', reply.error(new Error('connection reset'))],
  ];

  it.each(failures)(
    'reports %s as one non-fatal MEMORY_FAILED with turnId null; nothing is deleted and close completes',
    async (_name, answer) => {
      const { storage, outside, completed } = await closeAfterOneTurn({
        memories: three,
        consolidateAbove: 3,
        after: [answer],
      });
      expect(outside.filter((e) => e.payload.type === 'error')).toEqual([
        expect.objectContaining({
          turnId: null,
          payload: expect.objectContaining({
            fatal: false,
            error: expect.objectContaining({
              code: 'MEMORY_FAILED',
              message: expect.stringContaining('memory consolidation failed'),
            }),
          }),
        }),
      ]);
      expect(await contents(storage)).toEqual([
        'The user drinks green tea every day.',
        'The user likes green tea.',
        'The user lives in Lyon.',
        'The user works as a nurse.',
      ]);
      expect(completed).toBe(true);
    },
  );

  it('reports the usage of an answer it then rejects', async () => {
    const { outside } = await closeAfterOneTurn({
      memories: three,
      consolidateAbove: 3,
      after: [reply.text('not JSON', { usage: { inputTokens: 500, outputTokens: 5 }, cost: 0.25 })],
    });
    expect(outside.map((e) => e.payload.type)).toEqual(['usage', 'error']);
    expect(outside[0]!.payload).toMatchObject({ type: 'usage', cost: 0.25 });
  });
});

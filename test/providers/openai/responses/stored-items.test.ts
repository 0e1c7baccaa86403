/**
 * What the runtime keeps of a response's items, through an agent over real HTTP: a compaction
 * drops the items of the messages it summarizes; a response that does not finish (cancelled, or
 * failed after output) stores no items, and its partial text goes back as a plain message.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool, InMemorySessionStorage, type Message } from '../../../../src/index.js';
import { createTestAgent } from '../../../support/agent.js';
import { startSse, writeInPieces } from '../../../support/chat-completions-server.js';
import { chatModel, LONG_ANSWER } from '../../../support/models.js';
import { recordedEvents, textStream, toSse, withTerminal } from '../../../support/responses-derived.js';
import { readResponsesStream, streamBodies, withResponsesServer } from '../../../support/responses-server.js';

const local = withResponsesServer();
const calculator = defineTool({
  name: 'calculator',
  description: 'Arithmetic',
  parameters: z.object({ a: z.number(), b: z.number(), op: z.string() }),
  execute: async ({ arguments: { a, b, op } }) => String(op === 'add' ? a + b : a * b),
});
const LOOP = [1, 2, 3, 4].map((n) =>
  readResponsesStream(`vercel-openai-reasoning-encrypted-content-step${n}.sse`),
);
/** The ids of the items of the recorded loop all share this prefix. */
const LOOP_IDS = '01830d662ab3856501693c32';

const withItems = (messages: readonly Message[]) =>
  messages.filter((m) => m.type === 'assistant' && m.providerItems !== undefined);

describe('compaction', () => {
  it('drops the items of the messages it summarizes, from the history, the snapshot and the next request', async () => {
    const storage = new InMemorySessionStorage();
    local.server.requests.length = 0;
    local.server.respondWith(
      streamBodies([
        ...LOOP,
        // Derived texts; the long answer's usage puts the next request over a 2,000-token window's threshold.
        textStream(LONG_ANSWER, 'long', { input_tokens: 1_500, output_tokens: 10 }),
        textStream('Summary: 12+7, ×3, ×10 gave 570.', 'summary'),
        textStream('ok', 'after'),
      ]),
    );
    const { agent } = await createTestAgent({
      provider: local.provider({ models: [chatModel('m', { contextWindow: 2_000 })] }),
      tools: [calculator],
      sessionStorage: storage,
    });
    const session = await agent.newSession();
    await (
      await session.sendMessage('Compute.')
    ).result;
    await (
      await session.sendMessage('Write a lot.')
    ).result;
    expect(withItems(session.messages)).toHaveLength(5);
    expect(JSON.stringify(session.messages)).toContain(LOOP_IDS);

    const third = await (await session.sendMessage('Thanks.')).result;
    expect(third.status).toBe('completed');
    expect(local.server.requests).toHaveLength(7);
    // The summary request still had the items (its model reads them); what follows does not.
    expect(JSON.stringify(local.server.requests[5]!.body['input'])).toContain(LOOP_IDS);
    const last = JSON.stringify(local.server.requests[6]!.body['input']);
    expect(last).toContain('Summary: 12+7');
    expect(last).not.toContain(LOOP_IDS);
    expect(last).not.toContain('encrypted_content');
    expect(JSON.stringify(session.messages)).not.toContain(LOOP_IDS);

    const stored = (await storage.loadSession(session.id))!;
    const snapshot = stored
      .filter((e) => e.payload.type === 'metadata' && e.payload.key === 'context_snapshot')
      .at(-1);
    expect(snapshot).toBeDefined();
    expect(JSON.stringify(snapshot)).not.toContain(LOOP_IDS);
    await agent.shutdown();

    // A reload starts from the snapshot: the summarized items stay gone.
    local.server.respondWith(streamBodies([textStream('again', 'reload')]));
    const again = await createTestAgent({
      provider: local.provider({ models: [chatModel('m', { contextWindow: 2_000 })] }),
      sessionStorage: storage,
    });
    const resumed = await again.agent.resumeSession(session.id);
    expect(resumed.messages).toEqual(session.messages);
    await again.agent.shutdown();
  });
});

describe('a response that does not finish stores no items', () => {
  it('cancelled while streaming (vercel-xai-reasoning-store-false.sse, cut before its end): an incomplete message without items, sent back as plain text', async () => {
    const storage = new InMemorySessionStorage();
    local.server.requests.length = 0;
    const events = recordedEvents('vercel-xai-reasoning-store-false.sse');
    const firstText = events.findIndex((e) => e['type'] === 'response.output_text.delta');
    let requests = 0;
    local.server.respondWith(async (_req, res) => {
      if (requests++ > 0) {
        startSse(res);
        await writeInPieces(res, textStream('fine', 'next'));
        res.end();
        return;
      }
      startSse(res);
      // Everything up to and including the first text delta, then silence (the server hangs).
      await writeInPieces(res, toSse(events.slice(0, firstText + 1)));
    });
    const { agent } = await createTestAgent({ provider: local.provider(), sessionStorage: storage });
    const session = await agent.newSession();
    const turn = await session.sendMessage('Tell me.');
    turn.events.subscribe(({ payload }) => {
      if (payload.type === 'text_delta') turn.cancel();
    });
    expect((await turn.result).status).toBe('cancelled');
    const assistant = session.messages.find((m) => m.type === 'assistant');
    expect(assistant).toMatchObject({ status: 'incomplete' });
    expect(withItems(session.messages)).toEqual([]);
    const stored = (await storage.loadSession(session.id))!;
    expect(
      stored.filter((e) => e.payload.type === 'assistant_message').map((e) => 'providerItems' in e.payload),
    ).toEqual([false]);

    await (
      await session.sendMessage('Go on.')
    ).result;
    const input = local.server.requests.at(-1)!.body['input'] as Record<string, unknown>[];
    expect(JSON.stringify(input)).not.toContain('"type":"reasoning"');
    expect(input[1]).toEqual({
      role: 'assistant',
      content: (assistant as { content: { text: string }[] }).content[0]!.text,
    });
    await agent.shutdown();
  });

  it('failed after output began (derived: vercel-azure-text.sse ending in response.failed): the turn fails, the partial text is kept without items', async () => {
    const storage = new InMemorySessionStorage();
    const failed = withTerminal(recordedEvents('vercel-azure-text.sse'), (response) => ({
      type: 'response.failed',
      response: { ...response, status: 'failed', error: { code: 'server_error', message: 'boom' } },
    }));
    local.server.respondWith(streamBodies([toSse(failed)]));
    const { agent } = await createTestAgent({ provider: local.provider(), sessionStorage: storage });
    const session = await agent.newSession();
    const result = await (await session.sendMessage('Hi')).result;
    expect([result.status, result.error?.code]).toEqual(['failed', 'PROVIDER_ERROR']);
    const stored = (await storage.loadSession(session.id))!;
    const messages = stored.filter((e) => e.payload.type === 'assistant_message').map((e) => e.payload);
    expect(messages).toEqual([
      { type: 'assistant_message', content: [{ type: 'text', text: 'Hello' }], status: 'incomplete' },
    ]);
    await agent.shutdown();
  });
});

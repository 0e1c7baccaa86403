/**
 * The React page of `docs/use-chat.md` ("A React page") runs as written: its ```tsx block is read
 * from the Markdown (no copy of the code), bundled into a page for real Chromium and rendered as
 * `<ChatPage chatId token />`. The page and the handler share one origin, as the doc says, so the
 * example's relative `api` reaches a real `createAgentHandler` (scripted model, a `transfer` tool
 * that needs approval). The tests use the page as a user does, through its DOM: type and submit,
 * read the answer, click Approve or Deny, click Stop.
 */
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { defineTool } from '../../src/index.js';
import { createAgentHandler, toNodeListener, type AgentHandler } from '../../src/server.js';
import { reply, ScriptedModelProvider, type ScriptStep } from '../../src/testing/index.js';
import { ROOT, codeBlocks, readDoc } from '../docs/markdown.js';
import { agentFactory, bearerAuthorize } from '../server/support.js';
import { deferred } from '../support/waits.js';
import type { HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';

const SLOW = { timeout: 60_000 };
/** How long the page may take to show what a test waits for. */
const SHOWN = { timeout: 15_000 };

/** The page of the documentation, and its one ```tsx block. */
const DOC = 'docs/use-chat.md';
const block = (() => {
  const blocks = codeBlocks(DOC, readDoc(DOC)).filter((b) => b.lang === 'tsx');
  if (blocks.length !== 1)
    throw new Error(`${DOC} has ${blocks.length} \`\`\`tsx blocks; this test runs one`);
  return blocks[0]!;
})();

/**
 * Serves the block as the module `docs-example:use-chat`. Its id is a path beside the Markdown, so
 * the block's imports (`@ai-sdk/react`, `ai`, `react`) resolve from the repository, and the `.tsx`
 * ending gets it the JSX transform. Nothing is written to disk.
 */
const MODULE_ID = `${ROOT}${DOC}.tsx`;
const docsExample: Plugin = {
  name: 'docs-example',
  resolveId: (source) => (source === 'docs-example:use-chat' ? MODULE_ID : null),
  load: (id) => (id === MODULE_ID ? block.code : null),
};

/** The handler of the running test; every request the page makes to `/agent/…` reaches it. */
let handler: AgentHandler | null = null;
/** `METHOD path` of every request the handler got, in order. */
const requests: string[] = [];
const PAGE_ENTRY = fileURLToPath(new URL('./use-chat.docs-example.page.ts', import.meta.url));
const chromium = useChromium(PAGE_ENTRY, {
  plugins: [docsExample],
  sameOrigin: {
    prefix: '/agent/',
    listener: toNodeListener(async (request) => {
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      return handler ? handler(request) : new Response('no handler', { status: 503 });
    }),
  },
});

const held = deferred();
afterAll(() => {
  held.resolve();
});

/** A handler on `script`, with a `transfer` tool that needs approval and counts its runs. */
function start(script: ScriptStep[]) {
  const provider = new ScriptedModelProvider({ script });
  const transfers: number[] = [];
  const transfer = defineTool({
    name: 'transfer',
    description: 'Moves money',
    parameters: z.object({ amount: z.number() }),
    mutating: true,
    needsApproval: true,
    execute: async ({ arguments: { amount } }) => {
      transfers.push(amount);
      return `moved ${amount}`;
    },
  });
  handler = createAgentHandler({
    agent: agentFactory({ provider, tools: [transfer] }),
    authorize: bearerAuthorize,
  });
  requests.length = 0;
  return { provider, transfers };
}

/** A new tab showing `<ChatPage chatId={chatId} token="alice" />`. */
async function chatPage(chatId: string): Promise<HarnessPage> {
  const page = await chromium.open();
  await page.call('mount', chatId, 'alice');
  return page;
}

/** Types `text` into the page's input and submits the form (Enter), as a user does. */
async function send(page: HarnessPage, text: string): Promise<void> {
  const input = page.page.getByRole('textbox');
  await input.fill(text, SHOWN);
  await input.press('Enter', SHOWN);
}

/** Waits until a paragraph of the page says exactly `text`. */
async function shown(page: HarnessPage, text: string): Promise<void> {
  await page.page.getByText(text, { exact: true }).waitFor(SHOWN);
}

/** Polls `done` (bounded) for what the server side does after the page has moved on. */
async function eventually(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

describe(`the React page of ${DOC} in Chromium`, SLOW, () => {
  it('reads the history, sends what the user types, shows the answer; a reload shows it again', async () => {
    start([reply.text('Hello from the server!', { chunks: 3 })]);
    const page = await chatPage('docs-hello');
    await send(page, 'Hi!');
    await shown(page, 'Hi!');
    await shown(page, 'Hello from the server!');
    // The history first (the chat mounts on it); then the resume and the message, in either order.
    expect(requests[0]).toBe('GET /agent/chat/docs-hello/messages');
    expect(requests.slice(1).sort()).toEqual(['GET /agent/chat/docs-hello/stream', 'POST /agent/chat']);

    // The history is the server's: a new page reads it with `GET …/messages`.
    await page.reload();
    await page.call('mount', 'docs-hello', 'alice');
    await shown(page, 'Hello from the server!');
    await shown(page, 'Hi!');
    expect(await page.call('errors')).toEqual([]);
    await page.close();
  });

  it('a call that needs approval shows Approve and Deny; Approve runs it once, then the answer', async () => {
    const { provider, transfers } = start([
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 4 }, callId: 'call-a' }], {
        text: 'Moving 4.',
      }),
      reply.text('Moved 4.', { chunks: 3 }),
    ]);
    const page = await chatPage('docs-approve');
    await send(page, 'Move 4');
    await shown(page, 'Moving 4.');
    const approve = page.page.getByRole('button', { name: 'Approve' });
    await approve.waitFor(SHOWN);
    expect(await page.page.getByText('transfer {"amount":4}').count()).toBe(1);
    expect(transfers).toEqual([]);
    await approve.click(SHOWN);
    await shown(page, 'Moved 4.');
    expect(transfers).toEqual([4]);
    expect(await page.page.getByRole('button', { name: /Approve|Deny/ }).count()).toBe(0);
    provider.assertConsumed();
    expect(await page.call('errors')).toEqual([]);
    await page.close();
  });

  it('Deny: the tool never runs, the model hears why', async () => {
    const { provider, transfers } = start([
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 9 }, callId: 'call-d' }]),
      reply.text('Not moved.'),
    ]);
    const page = await chatPage('docs-deny');
    await send(page, 'Move 9');
    await page.page.getByRole('button', { name: 'Deny' }).click(SHOWN);
    await shown(page, 'Not moved.');
    expect(transfers).toEqual([]);
    expect(JSON.stringify(provider.requests[1]?.messages)).toContain('not now');
    expect(await page.call('errors')).toEqual([]);
    await page.close();
  });

  it('Stop closes the stream and cancels the turn on the server', async () => {
    const { provider } = start([
      [
        { type: 'text_delta', text: 'Counting to a million.' },
        { type: 'wait', until: held.promise },
        { type: 'text_delta', text: ' One, two.' },
        { type: 'done', finishReason: 'stop' },
      ],
    ]);
    const page = await chatPage('docs-stop');
    await send(page, 'Count');
    await shown(page, 'Counting to a million.');
    await page.page.getByRole('button', { name: 'Stop' }).click(SHOWN);
    // The form is back: the page's stream is closed.
    await page.page.getByRole('textbox').waitFor(SHOWN);
    // The turn was cancelled (its model stream aborted), not only left without a reader.
    await eventually(() => provider.aborted === 1, 'the model stream aborted');
    expect(requests.filter((r) => r.endsWith('/cancel'))).toEqual(['POST /agent/chat/docs-stop/cancel']);
    // No turn runs any more: a reconnect is 204.
    const running = handler!;
    await eventually(async () => {
      const stream = await running(
        new Request('http://127.0.0.1/agent/chat/docs-stop/stream', {
          headers: { authorization: 'Bearer alice' },
        }),
      );
      await stream.body?.cancel();
      return stream.status === 204;
    }, 'the turn ended');
    expect(await page.page.getByText('One, two.').count()).toBe(0);
    expect(await page.call('errors')).toEqual([]);
    await page.close();
  });
});

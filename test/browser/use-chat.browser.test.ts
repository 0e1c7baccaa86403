/**
 * `useChat` from `@ai-sdk/react` in real Chromium against the handler (served on another origin,
 * behind the CORS headers an app's proxy would add): send, stream, approve; and a reload in the
 * middle of an answer with `resume: true` ends with the same messages, no part twice and no
 * stream error.
 */
import { fileURLToPath } from 'node:url';
import type { UIMessage } from 'ai';
import { afterAll, describe, expect, it } from 'vitest';
import { createAgentHandler } from '../../src/server.js';
import { reply, ScriptedModelProvider, type ScriptStep } from '../../src/testing/index.js';
import { agentFactory, bearerAuthorize, serve, transferTool, type RunningServer } from '../server/support.js';
import { deferred } from '../support/waits.js';
import type { HarnessPage } from './harness.js';
import { useChromium } from './use-chromium.js';

const SLOW = { timeout: 60_000 };
const PAGE_ENTRY = fileURLToPath(new URL('./use-chat.page.ts', import.meta.url));
const chromium = useChromium(PAGE_ENTRY);
const servers: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** The handler, answering a page on another origin (preflights included). */
async function start(script: ScriptStep[]): Promise<RunningServer> {
  const handler = createAgentHandler({
    agent: agentFactory({ provider: new ScriptedModelProvider({ script }), tools: [transferTool] }),
    authorize: bearerAuthorize,
  });
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-allow-methods': 'GET, POST',
  };
  const server = await serve(async (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: cors });
    const response = await handler(request);
    const headers = new Headers(response.headers);
    for (const [key, value] of Object.entries(cors)) headers.set(key, value);
    return new Response(response.body, { status: response.status, headers });
  });
  servers.push(server);
  return server;
}

interface PageState {
  status: string;
  messages: UIMessage[];
  errors: string[];
}

async function stateWhen(
  page: HarnessPage,
  done: (state: PageState) => boolean,
  what: string,
): Promise<PageState> {
  for (let i = 0; i < 400; i++) {
    const state = await page.call<PageState>('state');
    if (done(state)) return state;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never happened: ${what}`);
}

async function stored(server: RunningServer, id: string): Promise<UIMessage[]> {
  const response = await fetch(`${server.url}/chat/${id}/messages`, {
    headers: { authorization: 'Bearer alice' },
  });
  return (await response.json()) as UIMessage[];
}

const hasText = (state: PageState, text: string) =>
  state.messages.at(-1)?.parts.some((part) => part.type === 'text' && part.text === text) === true;

describe('useChat in Chromium', SLOW, () => {
  it('sends, streams, approves: the page ends with the messages the server has', async () => {
    const server = await start([
      reply.toolCalls([{ name: 'transfer', arguments: { amount: 4 }, callId: 'call-b' }], {
        text: 'Moving 4.',
      }),
      reply.text('Moved 4.', { chunks: 3 }),
    ]);
    const page = await chromium.open();
    await page.call('mount', `${server.url}/chat`, 'browser-approve', 'alice');
    await page.call('send', 'Move 4');
    await stateWhen(
      page,
      (s) =>
        s.status === 'ready' &&
        s.messages.at(-1)?.parts.some((p) => 'state' in p && p.state === 'approval-requested') === true,
      'the approval asked',
    );
    await page.call('approve', 'call-b');
    const end = await stateWhen(page, (s) => s.status === 'ready' && hasText(s, 'Moved 4.'), 'the answer');
    expect(end.errors).toEqual([]);
    expect(end.messages).toEqual(await stored(server, 'browser-approve'));
    await page.close();
  });

  it('a reload mid-answer with resume: true ends with the same messages, no part twice', async () => {
    const hold = deferred();
    const server = await start([
      [
        { type: 'text_delta', text: 'First half, ' },
        { type: 'wait', until: hold.promise },
        { type: 'text_delta', text: 'second half.' },
        { type: 'done', finishReason: 'stop' },
      ],
    ]);
    const page = await chromium.open();
    await page.call('mount', `${server.url}/chat`, 'browser-reload', 'alice');
    await page.call('send', 'Tell me');
    await stateWhen(page, (s) => hasText(s, 'First half, '), 'the first half');
    await page.reload();
    expect(await page.call('mount', `${server.url}/chat`, 'browser-reload', 'alice')).toBe(1);
    await stateWhen(page, (s) => hasText(s, 'First half, '), 'the resumed first half');
    hold.resolve();
    const end = await stateWhen(
      page,
      (s) => s.status === 'ready' && hasText(s, 'First half, second half.'),
      'the answer',
    );
    expect(end.errors.filter((e) => e.includes('UIMessageStreamError'))).toEqual([]);
    expect(end.errors).toEqual([]);
    expect(end.messages).toHaveLength(2);
    expect(end.messages[1]!.parts).toEqual([
      { type: 'step-start' },
      { type: 'text', text: 'First half, second half.', state: 'done' },
    ]);
    expect(end.messages).toEqual(await stored(server, 'browser-reload'));
    await page.close();
  });
});

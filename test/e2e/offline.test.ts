/**
 * The demo with no endpoint set: the scripted offline model that ships with the demo answers,
 * labelled as scripted, and calls the demo's tools.
 */
import { describe, expect, it } from 'vitest';
import { useDemo } from './support/fixture.js';

const e2e = useDemo();

describe('the demo with no endpoint', () => {
  it('answers with the scripted offline model, labelled as scripted, through the calculator', async () => {
    const page = await e2e.open({ offline: true });
    expect(await page.page.textContent('.model-badge')).toMatch(/scripted offline model/i);
    await page.sendAndWait('What is 12 * (3 + 4)?');
    expect(await page.items()).toEqual([
      { kind: 'user', id: 'message-0', status: null, text: 'What is 12 * (3 + 4)?' },
      // The reasoning before the call: an assistant row with no text.
      { kind: 'assistant', id: 'message-1', status: 'complete', text: '' },
      {
        kind: 'tool',
        id: expect.any(String),
        status: 'done',
        text: 'calculator({\n  "expression": "12 * (3 + 4)"\n}) \u2192 12 * (3 + 4) = 84',
      },
      {
        kind: 'assistant',
        id: 'message-4',
        status: 'complete',
        text: 'Here is what the tools said:\n12 * (3 + 4) = 84',
      },
    ]);
    await page.screenshot('demo-offline');
    expect(e2e.server.requests).toEqual([]);
    expect(page.blocked).toEqual([]);
  });

  it('follows the /stepwise skill: one calculator call per step, then the steps as a list', async () => {
    const page = await e2e.open({ offline: true });
    await page.sendAndWait('/stepwise (12 + 30) * 2');
    const items = await page.items();
    // The skill shows as a notice before the message that invoked it.
    expect(items.map((i) => i.kind)).toEqual(['notice', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(items[0]!.text).toContain('/stepwise');
    expect(items.filter((i) => i.kind === 'tool').map((i) => i.text.split(' \u2192 ')[1])).toEqual([
      '12 + 30 = 42',
      '(12 + 30) * 2 = 84',
    ]);
    expect(items.at(-1)!.text).toBe('1. 12 + 30 = 42\n2. (12 + 30) * 2 = 84\n\n**Result: 84**');
  });

  it('stops a model stuck in a loop: the fourth identical call is refused, and the model reads why', async () => {
    const page = await e2e.open({ offline: true });
    await page.sendAndWait('loop');
    const items = await page.items();
    const tools = items.filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual(['done', 'done', 'done', 'error']);
    expect(tools.slice(0, 3).map((t) => t.text.split(' \u2192 ')[1])).toEqual([
      '2 + 2 = 4',
      '2 + 2 = 4',
      '2 + 2 = 4',
    ]);
    expect(tools[3]!.text).toContain('the same call was made 3 times in this turn already');
    expect(items.at(-1)).toMatchObject({ kind: 'assistant', status: 'complete' });
    expect(items.at(-1)!.text).toMatch(
      /^I made the same calculator call 3 times; the runtime refused the next one/,
    );
  });

  it('shows the demo plugin at work: its hook calls are listed as they happen', async () => {
    const page = await e2e.open({ offline: true });
    await page.send('note: buy oat milk');
    // The notes tool asks first: allow it on its card.
    await page.page.click('.row.tool .approval button.approval-allow', { timeout: 15_000 });
    await page.page.waitForSelector('.turn-summary', { timeout: 15_000 });
    await page.waitReady();
    const events = await page.page.$$eval('.activity li', (rows) =>
      rows.map((r) => (r as HTMLElement).dataset['event']),
    );
    expect(events).toEqual([
      'session_start',
      'turn_start',
      'pre_request',
      'post_request',
      'before_tool_use',
      'after_tool_use',
      'pre_request',
      'post_request',
      'turn_end',
    ]);
    expect(await page.page.textContent('.activity li[data-event="turn_start"]')).toContain(
      '1 dynamic prompt section',
    );
    const card = (await page.items()).find((i) => i.kind === 'tool');
    expect(card?.text).toContain('Saved note 1: buy oat milk');
  });

  it('remembers across sessions: the close extracts a memory into IndexedDB, the next session has it', async () => {
    const page = await e2e.open({ offline: true });
    await page.sendAndWait('remember that I drink green tea');
    await page.page.click('.new-chat'); // closes the session: memory extraction runs
    await page.waitReady();
    await page.sendAndWait('What do you remember?');
    expect((await page.items()).at(-1)?.text).toBe(
      'From earlier sessions I remember:\n- The user asked to remember: that I drink green tea [demo]',
    );
    expect(await page.storedText()).toContain('The user asked to remember: that I drink green tea');
  });

  it('connects the inspector: it opens stately.ai, which gets the machines and not the messages', async () => {
    const page = await e2e.open({ offline: true });
    expect(await page.page.textContent('.inspect-toggle')).toContain('needs internet');
    const [inspector] = await Promise.all([
      page.context.waitForEvent('page'),
      page.page.check('.inspect-toggle input'),
    ]);
    expect(inspector.url()).toBe('https://stately.ai/inspect');
    await page.waitReady();
    await page.sendAndWait('Hello, inspector');
    const received = await inspector.evaluate(
      () => (window as unknown as { received: { type: string; name?: string }[] }).received,
    );
    const actors = new Set(received.filter((e) => e.type === '@xstate.actor').map((e) => e.name));
    expect([...actors]).toEqual(expect.arrayContaining(['agent', 'session', 'turn', 'steps']));
    // The turn's steps show as the step runner's reports to the Turn machine.
    const eventTypes = new Set(
      received.flatMap((e) =>
        e.type === '@xstate.event' ? [(e as { event?: { type?: string } }).event?.type] : [],
      ),
    );
    expect([...eventTypes]).toEqual(
      expect.arrayContaining(['startTurn.done', 'streamModel.done', 'endTurn.done']),
    );
    const text = JSON.stringify(received);
    expect(text).not.toContain('Hello, inspector');
    expect(text).not.toContain('You said');
  });
});

/**
 * The demo with an MCP server in its settings: the demo's own MCP server (`roll_dice`,
 * `word_count`) on 127.0.0.1, a local model that calls `roll_dice`, and the call shown as a tool
 * card whose output came from the MCP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoMcpServer, type DemoMcpServer } from '../../demo/mcp-demo-server.js';
import { TEST_API_KEY, TEST_MODEL, useDemo } from './support/fixture.js';

const e2e = useDemo();
let mcp: DemoMcpServer | undefined;

beforeAll(async () => {
  // Every die shows the middle face: 1 + floor(0.5 × 6) = 4.
  mcp = await startDemoMcpServer({ random: () => 0.5 });
});

afterAll(async () => {
  await mcp?.close();
});

describe('the demo with an MCP server', () => {
  it('offers the server’s tools to the model and shows a call of one as a tool card', async () => {
    const page = await e2e.open({ offline: true });
    await page.page.click('.settings-button');
    await page.page.fill('dialog.settings input[name="baseURL"]', e2e.server.baseURL);
    await page.page.fill('dialog.settings input[name="apiKey"]', TEST_API_KEY);
    await page.page.fill('dialog.settings input[name="model"]', TEST_MODEL);
    await page.page.fill('dialog.settings textarea[name="mcpServers"]', mcp!.url);
    await page.page.click('dialog.settings button[type="submit"]');
    await page.page.waitForSelector('.model-badge[data-offline="false"]');
    await page.waitReady();

    e2e.server.respondWith((_body, n) =>
      n === 0
        ? { toolCalls: [{ name: 'roll_dice', arguments: { count: 2, sides: 6 } }] }
        : { text: 'You rolled two fours.' },
    );
    await page.sendAndWait('Roll two dice.');

    const offered = (e2e.server.turnRequests[0]!.body.tools ?? []) as { function: { name: string } }[];
    expect(offered.map((tool) => tool.function.name)).toEqual(
      expect.arrayContaining(['calculator', 'roll_dice', 'word_count']),
    );
    const card = page.page.locator('.row.tool');
    expect(await card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('.tool-name').textContent()).toBe('roll_dice');
    expect(await card.locator('.tool-output').textContent()).toBe('rolled 4, 4 (total 8)');
    const answered = e2e.server.turnRequests.at(-1)!.body.messages!.at(-1);
    expect(answered).toMatchObject({ role: 'tool', content: 'rolled 4, 4 (total 8)' });
    expect((await page.items()).at(-1)).toMatchObject({ kind: 'assistant', text: 'You rolled two fours.' });
    expect(page.blocked).toEqual([]);
  });
});

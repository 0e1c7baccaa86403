/**
 * The demo as `npm start` serves it, on a phone (390×844, touch) and on a desktop (1280×800), with
 * the agent in this browser and on the demo server, and the scripted offline model: open the
 * settings and save them, send and watch the answer stream, approve a tool call, plan a trip,
 * look at the hook activity, switch sessions, reload. At every step no control is covered by
 * another and the page does not scroll sideways; on the phone every control is at least 44 px
 * and the chat fills the width. A reload reopens the session that was open; in this browser, a
 * reload while a call waits for approval offers to continue it, and Allow then runs it; on the
 * server, the reloaded page shows the call still waiting, and Allow runs it once (Deny, not at all).
 * Screenshots go to test-results/layout-<device>-<mode>-<step>.png.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/chromium.js';
import { startDemoDevServer, type DemoDevServer } from './support/demo-dev-server.js';
import { DemoPage, DESKTOP, PHONE, type ShownItem } from './support/demo-page.js';
import { layoutProblems } from './support/layout-check.js';

let dev: DemoDevServer;
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  [browser, dataDir] = await Promise.all([launchChromium(), mkdtemp(join(tmpdir(), 'youyou-demo-layout-'))]);
  // `npm start` without a key: both agents answer with the scripted offline model.
  dev = await startDemoDevServer(
    {
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OPENAI_MODEL: undefined,
      OPENAI_MODELS: undefined,
      DATABASE_URL: undefined,
      DEMO_DATA_DIR: dataDir,
    },
    { warm: true },
  );
  // The agent server opens its database as the dev server starts: wait for it here, not in a test.
  const warm = await fetch(`${dev.origin}/agent/sessions`, {
    headers: { authorization: `Bearer ${dev.token!}`, 'x-youyou-demo-user': 'user-warmup-01' },
  });
  expect(warm.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const devices = { phone: PHONE, desktop: DESKTOP } as const;
type Device = keyof typeof devices;
type Mode = 'browser' | 'server';

/** One page of the demo on `device`, with what each step checks and records. */
class Visit {
  private constructor(
    readonly demo: DemoPage,
    readonly device: Device,
    readonly mode: Mode,
  ) {}

  static async open(device: Device, mode: Mode): Promise<Visit> {
    const demo = await DemoPage.open(browser, dev.origin, undefined, devices[device]);
    return new Visit(demo, device, mode);
  }

  get page() {
    return this.demo.page;
  }

  /** No covered control, no sideways scroll (and 44 px targets on the phone), within `within`. */
  async usable(step: string, within?: string): Promise<void> {
    const problems = await layoutProblems(this.page, {
      ...(within && { within }),
      ...(this.device === 'phone' && { minTarget: 44 }),
    });
    expect(problems, `${this.device}, ${this.mode}, ${step}`).toEqual([]);
  }

  async screenshot(step: string): Promise<void> {
    await this.demo.screenshot(`layout-${this.device}-${this.mode}-${step}`);
  }

  /** Opens the sessions: the drawer on a phone; the column is always there on a desktop. */
  async sessions(): Promise<void> {
    if (this.device === 'phone') {
      await this.page.click('.sessions-toggle');
      await this.page.waitForSelector('.sidebar', { state: 'visible' });
    }
  }

  /** Opens the settings, checks the dialog, and saves it (on the server when `mode` says so). */
  async saveSettings(): Promise<void> {
    await this.page.click('.settings-button');
    await this.page.waitForSelector('dialog.settings[open]');
    await this.screenshot('settings');
    await this.usable('settings', 'dialog.settings');
    await this.page.check(`dialog.settings input[name="runOn"][value="${this.mode}"]`);
    // The test's dev server names an MCP server that is not there: none, for this visit.
    await this.page.fill('dialog.settings textarea[name="mcpServers"]', '');
    await this.page.click('dialog.settings button[type="submit"]');
    await this.page.waitForSelector(`.run-on-badge[data-runs-on="${this.mode}"]`);
    await this.demo.waitReady();
  }

  /** Types `text` and sends it. */
  async send(text: string): Promise<void> {
    await this.demo.send(text);
  }

  /** Sends `text`, and waits for its turn to end and the demo to be ready again. */
  async sendAndWait(text: string): Promise<void> {
    await this.demo.sendAndWait(text);
  }

  /** Waits until a call waits for approval, and returns its card. */
  async waitingCard() {
    const card = this.page.locator('.row.tool[data-status="awaiting_approval"]');
    await card.locator('.approval:not([hidden]) button.approval-allow').waitFor({ timeout: 15_000 });
    return card;
  }

  /** How wide the chat and the composer's text box are, against the window. */
  widths() {
    return this.page.evaluate(() => ({
      window: window.innerWidth,
      chat: document.querySelector('.chat')!.getBoundingClientRect().width,
      composer: document.querySelector('.composer')!.getBoundingClientRect().width,
      textarea: document.querySelector('.composer textarea')!.getBoundingClientRect().width,
    }));
  }
}

/**
 * What a resumed session shows of the items a live one showed: an assistant message that only
 * reasoned (no text) before its tool call shows live, and not once resumed.
 */
function shownAfterResume(items: ShownItem[]): ShownItem[] {
  return items.filter((item) => !(item.kind === 'assistant' && item.text === ''));
}

/** Every step of a visit on `device` in `mode`. */
async function visit(device: Device, mode: Mode): Promise<void> {
  const v = await Visit.open(device, mode);
  try {
    await v.usable('the first view');
    if (device === 'phone') {
      // One column: the chat and the composer fill the width; the panels wait behind toggles.
      const widths = await v.widths();
      expect(widths.chat).toBe(widths.window);
      expect(widths.composer).toBe(widths.window);
      expect(widths.textarea).toBeGreaterThan(widths.window / 2);
      expect(await v.page.isHidden('.sidebar')).toBe(true);
      expect(await v.page.isHidden('.activity-panel')).toBe(true);
    } else {
      // The desktop's three columns, as before, and no phone toggles.
      expect(await v.page.isVisible('.sidebar')).toBe(true);
      expect(await v.page.isVisible('.activity-panel')).toBe(true);
      expect(await v.page.locator('.panel-toggle:visible, .panel-close:visible').count()).toBe(0);
      const widths = await v.widths();
      expect(widths.chat).toBe(1280 - 260 - 300);
    }

    await v.saveSettings();

    // Send, and watch the answer stream: a story long enough to see it grow, then Stop.
    await v.send('tell me a long story');
    await v.page.waitForSelector('.row.assistant .text:text("Once upon a time")', { timeout: 15_000 });
    await v.screenshot('streaming');
    await v.usable('while an answer streams');
    await v.page.click('.composer .stop');
    await v.page.waitForSelector('.turn-summary[data-status="cancelled"]', { timeout: 15_000 });
    await v.demo.waitReady();

    // Approve a tool call.
    await v.send('note: buy oat milk');
    const card = await v.waitingCard();
    await v.screenshot('approval');
    await v.usable('while a call waits for approval');
    await card.locator('button.approval-allow').click();
    await v.page.waitForSelector('.row.tool[data-status="done"]', { timeout: 15_000 });
    await v.demo.waitReady();
    expect((await v.demo.items()).find((i) => i.kind === 'tool')?.text).toContain('Saved note');

    // Plan a trip: the structured answer fills the trip card in.
    await v.page.click('.plan-trip');
    await v.page.waitForSelector('.trip-card[data-status="done"]', { timeout: 15_000 });
    await v.demo.waitReady();
    expect(await v.page.textContent('.trip-card .trip-title')).toBe('Three days in Kyoto');
    await v.screenshot('chat');
    await v.usable('with a trip plan');
    const first = shownAfterResume(await v.demo.items());

    // The hook activity: a sheet over the chat on the phone, a column on the desktop.
    if (device === 'phone') {
      await v.page.click('.activity-toggle');
      await v.page.waitForSelector('.activity-panel', { state: 'visible' });
      await v.screenshot('activity');
      await v.usable('with the activity open', '.activity-panel');
    }
    // The demo plugin is the in-page agent's: the server's agent reports no hook activity here.
    if (mode === 'browser') expect(await v.page.locator('.activity li').count()).toBeGreaterThan(0);
    if (device === 'phone') {
      await v.page.click('.activity-panel .panel-close');
      await v.page.waitForSelector('.activity-panel', { state: 'hidden' });
    }

    // Switch sessions: a new chat, then back to the first one.
    await v.sessions();
    if (device === 'phone') {
      await v.screenshot('sessions');
      await v.usable('with the sessions open', '.sidebar');
    }
    await v.page.click('.new-chat');
    await v.demo.waitReady();
    expect(await v.page.isHidden('.sidebar')).toBe(device === 'phone');
    await v.sendAndWait('what is 6 * 7?');
    const second = await v.demo.items();
    await expect.poll(() => v.demo.sessionTitles()).toHaveLength(2);
    await v.sessions();
    await v.page.click('.sessions li:last-child .session-open');
    await v.page.waitForSelector('.sessions li.active:last-child', { state: 'attached' });
    await v.page.waitForFunction(
      (n) => document.querySelectorAll('.chat [data-kind]').length >= n,
      first.length,
    );
    await v.demo.waitReady();
    expect(await v.demo.items()).toEqual(first);
    expect(await v.page.isHidden('.sidebar')).toBe(device === 'phone');

    // A reload reopens the session that was open, where the agent runs.
    await v.demo.reload();
    await v.page.waitForFunction(
      (n) => document.querySelectorAll('.chat [data-kind]').length >= n,
      first.length,
    );
    await v.demo.waitReady();
    expect(await v.page.getAttribute('.run-on-badge', 'data-runs-on')).toBe(mode);
    expect(await v.demo.items()).toEqual(first);
    expect(second).not.toEqual(first);
    await v.usable('after a reload');
    expect(v.demo.blocked).toEqual([]);
  } finally {
    await v.demo.close();
  }
}

/** In this browser: a reload while a note waits for approval, then Continue and Allow. */
async function reloadWhileApprovalWaits(device: Device): Promise<void> {
  const v = await Visit.open(device, 'browser');
  try {
    await v.send('note: water the plants');
    await v.waitingCard();
    await v.demo.reload();
    // Reopened without a click: the banner offers to continue the turn the reload cut off.
    await v.page.waitForSelector('.session-banner[data-kind="interrupted"]');
    expect(await v.page.textContent('.session-banner')).toContain('waited for approval');
    await v.screenshot('reloaded-approval');
    await v.usable('after a reload while a call waits');
    await v.page.click('.session-banner .continue');
    const card = await v.waitingCard();
    await v.usable('while the continued call waits');
    await card.locator('button.approval-allow').click();
    await v.page.waitForSelector('.turn-summary[data-status="completed"]', { timeout: 15_000 });
    await v.demo.waitReady();
    const tools = (await v.demo.items()).filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual(['done']);
    expect(tools[0]?.text).toContain('Saved note 1: water the plants');
  } finally {
    await v.demo.close();
  }
}

/**
 * On the server: a reload while a note waits for approval. The turn goes on waiting on the server,
 * so the reloaded page shows the card with its buttons live, and its choice decides that turn:
 * Allow runs the note once (the server's notes, listed afterwards, hold it once), Deny runs
 * nothing.
 */
async function reloadWhileApprovalWaitsOnServer(device: Device, choice: 'allow' | 'deny'): Promise<void> {
  const v = await Visit.open(device, 'server');
  try {
    await v.saveSettings();
    await v.send('note: water the plants');
    await v.waitingCard();
    // Not `demo.reload()`: the turn still runs on the server, so the page is not `ready` after it.
    await v.page.reload();
    const card = await v.waitingCard();
    expect(await card.locator('button.approval-allow').isEnabled()).toBe(true);
    expect(await card.locator('button.approval-deny').isEnabled()).toBe(true);
    await v.screenshot(`reloaded-approval-${choice}`);
    await v.usable('after a reload while a call waits on the server');
    await card.locator(`button.approval-${choice}`).click();
    await v.page.waitForSelector('.turn-summary[data-status="completed"]', { timeout: 15_000 });
    await v.demo.waitReady();
    const tools = (await v.demo.items()).filter((i) => i.kind === 'tool');
    expect(tools.map((t) => t.status)).toEqual([choice === 'allow' ? 'done' : 'denied']);
    if (choice === 'allow') expect(tools[0]?.text).toContain('Saved note 1: water the plants');
    // What the server's notes hold: the note once, or none.
    await v.sendAndWait('list my notes');
    const listed = (await v.demo.items()).filter((i) => i.kind === 'tool').at(-1)?.text ?? '';
    expect(listed).toContain(choice === 'allow' ? '1. water the plants' : 'No notes yet.');
    expect(listed).not.toContain('2.');
    expect(await v.page.evaluate(() => localStorage.getItem('youyou-demo:notes'))).toBeNull();
  } finally {
    await v.demo.close();
  }
}

describe.each(['phone', 'desktop'] as const)('the demo on a %s', (device) => {
  it('in this browser: settings, streaming, approval, a trip, activity, sessions and a reload', async () => {
    await visit(device, 'browser');
  }, 120_000);

  it('on the server: settings, streaming, approval, a trip, activity, sessions and a reload', async () => {
    await visit(device, 'server');
  }, 120_000);

  it('in this browser: a reload while a call waits for approval, then Continue and Allow', async () => {
    await reloadWhileApprovalWaits(device);
  }, 60_000);

  it.each(['allow', 'deny'] as const)(
    'on the server: a reload while a call waits for approval, then %s on the reloaded page',
    async (choice) => {
      await reloadWhileApprovalWaitsOnServer(device, choice);
    },
    60_000,
  );
});

/**
 * A turn continued after a reload numbers its items as a resume of the stored session does:
 * the derived results the reload showed for unfinished calls leave the history when the turn is
 * continued, and they leave the item numbering too. (Item ids are stable for the life of the
 * stored session: a page that continued the turn and a page that resumed it later show the same
 * keys — a second device reading the session from storage included.)
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/testing/index.js';
import { createTestAgent, guardedTool } from '../support/agent.js';
import { approvalRequested } from '../support/events.js';
import { storedCopy } from '../support/history.js';
import { asStored, current } from './support.js';

describe('a turn continued after a reload', () => {
  it('while its calls awaited approval: the live items have the ids a later resume shows', async () => {
    const page1 = guardedTool('notes');
    const first = await createTestAgent({
      tools: [page1.tool],
      script: [
        reply.toolCalls([
          { name: 'notes', arguments: { text: 'a' }, callId: 'c1' },
          { name: 'notes', arguments: { text: 'b' }, callId: 'c2' },
        ]),
      ],
    });
    const session = await first.agent.newSession();
    const turn = await session.sendMessage('note a and b');
    await approvalRequested(turn, 'c2');
    const storage = await storedCopy(first.sessionStorage!, session.id);

    const page2 = guardedTool('notes');
    const second = await createTestAgent({ tools: [page2.tool], sessionStorage: storage, script: [reply.text('done')] });
    const resumed = await second.agent.resumeSession(session.id);
    const continued = await resumed.continueTurn();
    await approvalRequested(continued, 'c2');
    await continued.approve('c1');
    await continued.deny('c2', { reason: 'not b' });
    expect((await continued.result).status).toBe('completed');
    const live = current(resumed).items;
    expect(live.at(-1)).toMatchObject({ kind: 'assistant', text: 'done' });
    await resumed.close();

    const later = await second.agent.resumeSession(session.id);
    expect(current(later).items).toEqual(asStored(live));
    await later.close();
    await Promise.all([first.agent.shutdown(), second.agent.shutdown()]);
  });
});

import { describe, expect, it } from 'vitest';
import { closeSession, type CloseSessionScope } from '../../../src/runtime/steps/close-session.js';
import { HookResult } from '../../../src/types.js';
import { Journal, live } from './support.js';

function setup(options: { memory?: boolean } = {}) {
  const journal = new Journal();
  const signals: AbortSignal[] = [];
  const scope: CloseSessionScope = {
    hook: journal.hook,
    extractMemories:
      options.memory === false
        ? null
        : async (signal) => {
            signals.push(signal);
            journal.note('extract');
          },
    drainWrites: async () => journal.note('drain'),
  };
  return { journal, scope, signals };
}

describe('closeSession', () => {
  it('fires session_end with the reason and turn count, extracts memories, then drains the writes', async () => {
    const { journal, scope, signals } = setup();
    const signal = live();
    await closeSession(scope, { sessionId: 's-1', reason: 'shutdown', turnCount: 4 }, signal);
    expect(journal.trail).toEqual(['hook:session_end', 'extract', 'drain']);
    expect(journal.hookData('session_end')).toEqual([{ reason: 'shutdown', turnCount: 4 }]);
    expect(signals).toEqual([signal]);
  });

  it('without memory, only fires session_end and drains', async () => {
    const { journal, scope } = setup({ memory: false });
    await closeSession(scope, { sessionId: 's-1', reason: 'close', turnCount: 0 }, live());
    expect(journal.trail).toEqual(['hook:session_end', 'drain']);
  });

  it('closes anyway when session_end aborts: the session is ending, there is nothing to refuse', async () => {
    const { journal, scope } = setup();
    journal.hooks.tap('session_end', 'gate', null, () => HookResult.abort('stay'));
    await closeSession(scope, { sessionId: 's-1', reason: 'close', turnCount: 1 }, live());
    expect(journal.trail).toEqual(['hook:session_end', 'extract', 'drain']);
  });
});

import { describe, expect, it } from 'vitest';
import { openSession, type OpenSessionScope } from '../../../src/runtime/steps/open-session.js';
import { HookResult, type Memory } from '../../../src/types.js';
import { Journal } from './support.js';

const CONFIG = { modelId: 'scripted-model', systemPromptOverride: 'Be brief.' };
const MEMORY: Memory = {
  id: 'm1',
  namespace: 'default',
  content: 'The user writes in French.',
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
};

function setup(options: { memory?: boolean } = {}) {
  const journal = new Journal();
  const used: (readonly Memory[])[] = [];
  const scope: OpenSessionScope = {
    sessionConfig: CONFIG,
    record: journal.record,
    hook: journal.hook,
    loadMemories:
      options.memory === false
        ? null
        : async () => {
            journal.note('load memories');
            return [MEMORY];
          },
    useMemories: (memories) => void used.push(memories),
    report: journal.report,
  };
  return { journal, scope, used };
}

describe('openSession', () => {
  it('records session_config, fires session_start, then loads the memories for a new session', async () => {
    const { journal, scope, used } = setup();
    await openSession(scope, { sessionId: 's-9', resumed: false });
    expect(journal.trail).toEqual(['record:session_config', 'hook:session_start', 'load memories']);
    expect(journal.recorded).toEqual([{ type: 'metadata', key: 'session_config', value: CONFIG }]);
    expect(journal.hookData('session_start')).toEqual([{ sessionId: 's-9', config: CONFIG }]);
    expect(used).toEqual([[MEMORY]]);
  });

  it('hands out copies of the config: neither a hook nor the storage can change the session’s', async () => {
    const { journal, scope } = setup();
    journal.hooks.tap('session_start', 'meddler', null, ({ data }) => {
      data.config.modelId = 'changed by a hook';
    });
    await openSession(scope, { sessionId: 's-9', resumed: false });
    expect(journal.recorded[0]).toMatchObject({ value: { modelId: 'scripted-model' } });
    (journal.recorded[0] as { value: { modelId: string } }).value.modelId = 'changed by the storage';
    expect(scope.sessionConfig.modelId).toBe('scripted-model');
  });

  it('neither records nor fires session_start for a resumed session, but loads its memories', async () => {
    const { journal, scope, used } = setup();
    await openSession(scope, { sessionId: 's-9', resumed: true });
    expect(journal.trail).toEqual(['load memories']);
    expect(used).toEqual([[MEMORY]]);
  });

  it('ignores a session_start abort and says so as HOOK_FAILED from the plugin', async () => {
    const { journal, scope, used } = setup();
    journal.hooks.tap('session_start', 'gate', null, () => HookResult.abort('not today'));
    await openSession(scope, { sessionId: 's-9', resumed: false });
    expect(journal.trail).toEqual([
      'record:session_config',
      'hook:session_start',
      'report:HOOK_FAILED',
      'load memories',
    ]);
    expect(journal.reported[0]).toMatchObject({
      source: 'plugin',
      message: expect.stringContaining('not today'),
    });
    expect(journal.reported[0]!.message).toContain('cannot abort');
    expect(used).toEqual([[MEMORY]]);
  });

  it('uses no memories without memory', async () => {
    const { scope, used } = setup({ memory: false });
    await openSession(scope, { sessionId: 's-9', resumed: false });
    expect(used).toEqual([]);
  });
});

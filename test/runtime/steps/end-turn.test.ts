import { describe, expect, it } from 'vitest';
import type { EndTurnInput } from '../../../machines/turn.types.js';
import { AgentError } from '../../../src/errors.js';
import { ContextManager } from '../../../src/context/context-manager.js';
import { INTERRUPTED_MESSAGE_NOTE } from '../../../src/prompt/templates.js';
import { TOOL_CALL_NOT_RUN_TEXT, TOOL_CALL_SKIPPED_TEXT } from '../../../src/prompt/tool-result-texts.js';
import { endTurn, type EndTurnScope } from '../../../src/runtime/steps/end-turn.js';
import { ResponseDraft } from '../../../src/runtime/turn-run.js';
import type { Message } from '../../../src/types.js';
import { IDS, Journal, live, text, usage } from './support.js';

interface Options {
  memory?: boolean;
  draft?: string;
  reasoning?: string;
  history?: Message[];
}

function setup(options: Options = {}) {
  const journal = new Journal();
  const history = new ContextManager(options.history ?? [text('hi')]);
  const draft = new ResponseDraft();
  if (options.reasoning) draft.add('reasoning_delta', options.reasoning);
  if (options.draft) draft.add('text_delta', options.draft);
  const signals: AbortSignal[] = [];
  const scope: EndTurnScope = {
    draft,
    history,
    append: (message, persist) => {
      history.push(message);
      journal.append(message, persist);
    },
    record: journal.record,
    drainWrites: async () => journal.note('drain'),
    clearDraft: async () => journal.note('clear draft'),
    extractMemories:
      options.memory === false
        ? null
        : async (signal) => {
            signals.push(signal);
            journal.note('extract');
          },
    hook: journal.hook,
    turnCost: () => null,
  };
  return { journal, draft, scope, signals };
}

const USAGE = usage(12, 3);
const FAILURE = new AgentError('PROVIDER_ERROR', 'down');
const input = (status: EndTurnInput['status'], more: Partial<EndTurnInput> = {}): EndTurnInput => ({
  ...IDS,
  status,
  usage: USAGE,
  error: status === 'failed' ? FAILURE : null,
  checkpointDue: false,
  ...more,
});

describe('endTurn', () => {
  it('ends a completed turn: the turn_ended marker, writes drained and the draft cleared, then turn_end', async () => {
    const { journal, scope } = setup();
    expect(await endTurn(scope, input('completed'), live())).toEqual({ checkpointed: false });
    expect(journal.trail).toEqual(['record:turn_ended', 'drain', 'clear draft', 'hook:turn_end']);
    expect(journal.recorded).toEqual([
      { type: 'metadata', key: 'turn_ended', value: { turnId: 't-1', status: 'completed', usage: USAGE } },
    ]);
    expect(journal.hookData('turn_end')).toEqual([{ status: 'completed', usage: USAGE }]);
  });

  it.each(['cancelled', 'failed'] as const)(
    'keeps the streamed part of a %s turn as an incomplete message, with a live-only note',
    async (status) => {
      const { journal, draft, scope } = setup({ draft: 'Half an ans' });
      await endTurn(scope, input(status), live());
      expect(journal.entries.filter((e) => e.kind === 'append')).toEqual([
        {
          kind: 'append',
          message: {
            type: 'assistant',
            content: [{ type: 'text', text: 'Half an ans' }],
            status: 'incomplete',
          },
          persist: true,
        },
        { kind: 'append', message: { type: 'system', content: INTERRUPTED_MESSAGE_NOTE }, persist: false },
      ]);
      // Appended before the drain, so the incomplete message is durable when the turn ends.
      expect(journal.trail.indexOf('drain')).toBeGreaterThan(journal.trail.indexOf('append:assistant'));
      expect(draft).toMatchObject({ text: '', streamed: false });
    },
  );

  it('keeps a draft that streamed only reasoning as an incomplete message without content', async () => {
    const { journal, scope } = setup({ reasoning: 'hmm' });
    await endTurn(scope, input('cancelled'), live());
    expect(journal.appended[0]).toEqual({ type: 'assistant', content: [], status: 'incomplete' });
  });

  it('appends nothing when nothing was streamed, or when the turn completed', async () => {
    const empty = setup();
    await endTurn(empty.scope, input('cancelled'), live());
    expect(empty.journal.appended).toEqual([]);

    const completed = setup({ draft: 'recorded already' });
    await endTurn(completed.scope, input('completed'), live());
    expect(completed.journal.appended).toEqual([]);
  });

  it('fires on_error with the error of a failed turn, before turn_end', async () => {
    const { journal, scope } = setup();
    await endTurn(scope, input('failed'), live());
    expect(journal.trail).toEqual([
      'hook:on_error',
      'record:turn_ended',
      'drain',
      'clear draft',
      'hook:turn_end',
    ]);
    expect(journal.hookData('on_error')).toEqual([{ error: FAILURE }]);
    expect(journal.hookData('turn_end')).toEqual([{ status: 'failed', usage: USAGE, error: FAILURE }]);
  });

  it('fires no on_error for a cancelled turn, nor for a failed one without an error', async () => {
    const cancelled = setup();
    await endTurn(cancelled.scope, input('cancelled'), live());
    expect(cancelled.journal.hookData('on_error')).toEqual([]);

    const bare = setup();
    await endTurn(bare.scope, input('failed', { error: null }), live());
    expect(bare.journal.hookData('on_error')).toEqual([]);
  });

  it('runs a due checkpoint: the record first, then the drain, then extraction, then turn_end', async () => {
    const { journal, scope, signals } = setup();
    const signal = live();
    expect(await endTurn(scope, input('completed', { checkpointDue: true }), signal)).toEqual({
      checkpointed: true,
    });
    expect(journal.trail).toEqual([
      'record:memory_checkpoint',
      'record:turn_ended',
      'drain',
      'clear draft',
      'extract',
      'hook:turn_end',
    ]);
    expect(journal.recorded[0]).toEqual({
      type: 'metadata',
      key: 'memory_checkpoint',
      value: { turnId: 't-1' },
    });
    expect(signals).toEqual([signal]);
  });

  it('runs no checkpoint when none is due, nor without memory', async () => {
    const notDue = setup();
    expect(await endTurn(notDue.scope, input('completed'), live())).toEqual({ checkpointed: false });
    expect(notDue.journal.trail).not.toContain('extract');
    expect(notDue.journal.trail).not.toContain('record:memory_checkpoint');

    const noMemory = setup({ memory: false });
    expect(await endTurn(noMemory.scope, input('completed', { checkpointDue: true }), live())).toEqual({
      checkpointed: false,
    });
    expect(noMemory.journal.trail).not.toContain('record:memory_checkpoint');
  });
});

describe('endTurn: every tool call keeps one result', () => {
  const call = (callId: string): Message => ({ type: 'tool_call', callId, toolName: 'echo', arguments: {} });
  const result = (callId: string, content = 'ok'): Message => ({
    type: 'tool_result',
    callId,
    content,
    isError: false,
  });
  const assistant: Message = { type: 'assistant', content: [], status: 'complete' };

  it('answers the calls of this turn that never ran, in call order, before anything else', async () => {
    const history = [text('go'), assistant, call('a'), call('b'), call('c'), result('b')];
    const { journal, scope } = setup({ history, draft: 'par' });
    await endTurn(scope, input('cancelled'), live());
    expect(journal.appended.slice(0, 2)).toEqual([
      { type: 'tool_result', callId: 'a', content: TOOL_CALL_SKIPPED_TEXT, isError: true },
      { type: 'tool_result', callId: 'c', content: TOOL_CALL_SKIPPED_TEXT, isError: true },
    ]);
    expect(journal.trail.slice(0, 3)).toEqual([
      'append:tool_result',
      'append:tool_result',
      'append:assistant',
    ]);
  });

  it('says a failed turn did not run them', async () => {
    const { journal, scope } = setup({ history: [text('go'), assistant, call('a')] });
    await endTurn(scope, input('failed'), live());
    expect(journal.appended[0]).toEqual({
      type: 'tool_result',
      callId: 'a',
      content: TOOL_CALL_NOT_RUN_TEXT,
      isError: true,
    });
  });

  it('leaves answered calls and earlier turns alone', async () => {
    const history = [text('old'), assistant, call('old'), text('go'), assistant, call('a'), result('a')];
    const { journal, scope } = setup({ history });
    await endTurn(scope, input('completed'), live());
    expect(journal.appended).toEqual([]);
  });
});

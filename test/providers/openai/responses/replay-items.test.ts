/**
 * The replay rules of stored output items, on items taken from recordings: same provider and
 * model only, no orphan reasoning, no reasoning the server cannot read back (and then no ids of
 * the items it preceded), references with `store: true`; and the call ids of a reused `call_id`.
 */
import { describe, expect, it } from 'vitest';
import {
  originalCallIds,
  qualifyCallId,
  replayItems,
} from '../../../../src/providers/openai/responses/replay-items.js';
import { doneItems, readResponsesStream } from '../../../support/responses-server.js';

const target = { providerId: 'openai-responses', model: 'm', store: false };
const stored = (items: unknown[], fields: Partial<{ provider: string; model: string }> = {}) => ({
  provider: 'openai-responses',
  model: 'm',
  items,
  ...fields,
});
const [reasoning, call] = doneItems(
  readResponsesStream('vercel-openai-reasoning-encrypted-content-step1.sse'),
);
const [rawReasoning, deepseekCall] = doneItems(readResponsesStream('pydantic-deepseek-function-call.sse'));
const [copilotReasoning, copilotMessage] = doneItems(
  readResponsesStream('vercel-github-copilot-id-rotation.sse'),
);

describe('replayItems', () => {
  it('gives the items verbatim, in order, to the same provider and model only', () => {
    expect(replayItems(stored([reasoning, call]), target)).toEqual([reasoning, call]);
    expect(replayItems(stored([reasoning, call], { model: 'other' }), target)).toBeNull();
    expect(replayItems(stored([reasoning, call], { provider: 'openai' }), target)).toBeNull();
    expect(replayItems(undefined, target)).toBeNull();
  });

  it('keeps raw reasoning text (DeepSeek) and drops a trailing reasoning item (an orphan)', () => {
    expect(replayItems(stored([rawReasoning, deepseekCall]), target)).toEqual([rawReasoning, deepseekCall]);
    expect(replayItems(stored([reasoning]), target)).toBeNull();
    expect(replayItems(stored([call, reasoning]), target)).toEqual([call]);
  });

  it('drops reasoning it cannot send back (no encrypted_content, no text: Copilot) and the id of what followed it', () => {
    expect([copilotReasoning!['encrypted_content'], copilotReasoning!['content']]).toEqual([null, []]);
    const { id: _id, ...withoutId } = copilotMessage!;
    expect(replayItems(stored([copilotReasoning, copilotMessage]), target)).toEqual([withoutId]);
  });

  it('with store: true, sends references, and function calls whole', () => {
    expect(replayItems(stored([reasoning, call]), { ...target, store: true })).toEqual([
      { type: 'item_reference', id: reasoning!['id'] },
      call,
    ]);
  });
});

describe('call ids', () => {
  it('are qualified only when taken, and mapped back from the stored items alone', () => {
    expect(qualifyCallId('call_0', new Set(), 'resp_1')).toBe('call_0');
    expect(qualifyCallId('call_0', new Set(['call_0']), 'resp_1')).toBe('call_0@resp_1');
    expect(qualifyCallId('call_0', new Set(['call_0', 'call_0@resp_1']), 'resp_1')).toBe('call_0@resp_1.2');
    const items = [
      { type: 'function_call', call_id: 'call_0' },
      { type: 'function_call', call_id: 'call_1' },
    ];
    expect([...originalCallIds(items, ['call_0@resp_9', 'call_1', 'unknown'])]).toEqual([
      ['call_0@resp_9', 'call_0'],
      ['call_1', 'call_1'],
    ]);
  });
});

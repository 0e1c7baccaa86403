import { describe, expect, it } from 'vitest';
import { toWireMessages, toWireRequest } from '../../../src/providers/openai/to-wire.js';
import type { ChatRequest, Message } from '../../../src/types.js';

const user = (text: string): Message => ({ type: 'user', content: [{ type: 'text', text }] });
const call = (callId: string, args: unknown): Message => ({
  type: 'tool_call',
  callId,
  toolName: 'f',
  arguments: args,
});
const result = (callId: string): Message => ({
  type: 'tool_result',
  callId,
  content: `r${callId}`,
  isError: false,
});

describe('toWireMessages', () => {
  it('puts the system prompt first and omits it when empty', () => {
    expect(toWireMessages('sys', [user('hi')])).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'hi' },
    ]);
    expect(toWireMessages('', [user('hi')])).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('sends text-only user content as one string, blocks joined by newlines', () => {
    const message: Message = {
      type: 'user',
      content: [
        { type: 'text', text: 'first' },
        { type: 'text', text: 'second' },
      ],
    };
    expect(toWireMessages('', [message])).toEqual([{ role: 'user', content: 'first\nsecond' }]);
  });

  it('sends images as image_url data URLs, in order with the text', () => {
    const message: Message = {
      type: 'user',
      content: [
        { type: 'image', data: 'AAAA', mediaType: 'image/jpeg' },
        { type: 'text', text: 'and this?' },
      ],
    };
    expect(toWireMessages('', [message])).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
          { type: 'text', text: 'and this?' },
        ],
      },
    ]);
  });

  it('joins an assistant message and the tool calls right after it into one message', () => {
    const wire = toWireMessages('', [
      { type: 'assistant', content: [{ type: 'text', text: 'Checking.' }], status: 'complete' },
      call('a', { q: 1 }),
      call('b', {}),
      result('a'),
      result('b'),
    ]);
    expect(wire).toEqual([
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'f', arguments: '{"q":1}' } },
          { id: 'b', type: 'function', function: { name: 'f', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'ra' },
      { role: 'tool', tool_call_id: 'b', content: 'rb' },
    ]);
  });

  it('turns a run of tool calls without an assistant message into one assistant message with null content', () => {
    const wire = toWireMessages('', [
      user('go'),
      call('a', 1),
      call('b', 2),
      result('a'),
      result('b'),
      call('c', 3),
      result('c'),
    ]);
    expect(
      wire.map((m) => (m.role === 'assistant' ? [m.content, m.tool_calls?.map((c) => c.id)] : m.role)),
    ).toEqual(['user', [null, ['a', 'b']], 'tool', 'tool', [null, ['c']], 'tool']);
  });

  it('sends null content for an empty assistant text followed by tool calls, and "" without them', () => {
    const empty: Message = { type: 'assistant', content: [], status: 'complete' };
    expect(toWireMessages('', [empty, call('a', {})])[0]).toMatchObject({ role: 'assistant', content: null });
    expect(toWireMessages('', [empty])).toEqual([{ role: 'assistant', content: '' }]);
  });

  it('sends raw string arguments as they are (invalid JSON kept raw)', () => {
    const wire = toWireMessages('', [call('a', '{"x": 1,'), call('b', 'null')]);
    expect(wire[0]).toMatchObject({
      tool_calls: [{ function: { arguments: '{"x": 1,' } }, { function: { arguments: 'null' } }],
    });
  });

  it('does not join tool calls to an assistant message separated from them', () => {
    const wire = toWireMessages('', [
      { type: 'assistant', content: [{ type: 'text', text: 'Hi' }], status: 'incomplete' },
      { type: 'system', content: 'The previous reply was interrupted.' },
      call('a', {}),
    ]);
    expect(wire).toEqual([
      { role: 'assistant', content: 'Hi' },
      { role: 'system', content: 'The previous reply was interrupted.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ]);
  });

  it('keeps only the text of assistant content', () => {
    const message: Message = {
      type: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', data: 'AAAA', mediaType: 'image/png' },
        { type: 'text', text: 'b' },
      ],
      status: 'complete',
    };
    expect(toWireMessages('', [message])).toEqual([{ role: 'assistant', content: 'a\nb' }]);
  });
});

describe('toWireRequest', () => {
  const request: ChatRequest = {
    model: 'm',
    systemPrompt: 's',
    messages: [user('hi')],
    tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }],
    maxOutputTokens: 100,
    purpose: 'compaction',
  };

  it('streams with usage and puts the token limit in the chosen field', () => {
    expect(toWireRequest(request, 'max_completion_tokens')).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        { type: 'function', function: { name: 't', description: 'd', parameters: { type: 'object' } } },
      ],
      max_completion_tokens: 100,
    });
    const legacy = toWireRequest(request, 'max_tokens');
    expect(legacy.max_tokens).toBe(100);
    expect('max_completion_tokens' in legacy).toBe(false);
  });
});

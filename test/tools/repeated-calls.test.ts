/**
 * The repeated-call guard's counting, as a pure function: what makes two calls the same, and
 * which calls of a batch it refuses given the counts so far.
 */
import { describe, expect, it } from 'vitest';
import { callKey, canonicalJson, refuseRepeats } from '../../src/tools/repeated-calls.js';
import { repeated } from '../../src/prompt/tool-result-texts.js';

const call = (callId: string, args: string, toolName = 'echo') => ({ callId, toolName, arguments: args });

describe('canonicalJson', () => {
  it('sorts the keys of every object, nested ones and ones inside arrays included', () => {
    expect(canonicalJson('{"b":{"y":1,"x":[{"q":1,"p":2}]},"a":null}')).toBe(
      '{"a":null,"b":{"x":[{"p":2,"q":1}],"y":1}}',
    );
    expect(canonicalJson(' [3, "a", {"b":1,"a":2}] ')).toBe('[3,"a",{"a":2,"b":1}]');
  });

  it('keeps text that is not JSON as it is', () => {
    expect(canonicalJson('{"a": ')).toBe('{"a": ');
  });
});

describe('callKey', () => {
  it('is the same for the same tool and JSON, whatever the key order and spacing', () => {
    expect(callKey(call('1', '{"a":1,"b":2}'))).toBe(callKey(call('2', '{ "b": 2, "a": 1 }')));
    // No arguments are `{}`, as the dispatcher reads them.
    expect(callKey(call('1', ''))).toBe(callKey(call('2', '{}')));
  });

  it('differs for another value, another tool, or other text', () => {
    const key = callKey(call('1', '{"a":1}'));
    expect(callKey(call('2', '{"a":2}'))).not.toBe(key);
    expect(callKey(call('3', '{"a":1}', 'other'))).not.toBe(key);
    expect(callKey(call('4', '{"a":"1"}'))).not.toBe(key);
  });

  it('holds a hash, never the arguments themselves', () => {
    expect(callKey(call('1', '{"secret":"do not keep me"}'))).not.toContain('secret');
  });
});

describe('refuseRepeats', () => {
  it('refuses, in batch order, the calls past the limit; refused and denied calls do not count', () => {
    const calls = [call('c1', '{}'), call('c2', '{}'), call('c3', '{}'), call('c4', '{}')];
    const denied = new Map([['c1', 'denied by the user']]);
    const counts = refuseRepeats(calls, {}, 2, denied);
    expect(counts).toEqual({ [callKey(calls[0]!)]: 2 });
    expect([...denied]).toEqual([
      ['c1', 'denied by the user'],
      ['c4', repeated(2)],
    ]);
  });

  it('starts from the counts it is given and leaves them unchanged', () => {
    const before = { [callKey(call('c0', '{}'))]: 1 };
    const denied = new Map<string, string>();
    const after = refuseRepeats([call('c1', '{}'), call('c2', '{}')], before, 2, denied);
    expect(before).toEqual({ [callKey(call('c0', '{}'))]: 1 });
    expect(after).toEqual({ [callKey(call('c0', '{}'))]: 2 });
    expect([...denied.keys()]).toEqual(['c2']);
  });

  it('refuses nothing and counts nothing with the limit 0', () => {
    const denied = new Map<string, string>();
    expect(refuseRepeats([call('c1', '{}'), call('c2', '{}')], {}, 0, denied)).toEqual({});
    expect(denied.size).toBe(0);
  });
});

/**
 * The repeated-call guard's counting, as a pure function: what makes two calls the same, and
 * which calls of a batch it refuses given the counts so far.
 */
import { describe, expect, it } from 'vitest';
import { CallKeys, canonicalJson, countExecuted, refuseRepeats } from '../../src/tools/repeated-calls.js';
import { repeated } from '../../src/prompt/tool-result-texts.js';

const call = (callId: string, args: string, toolName = 'echo') => ({ callId, toolName, arguments: args });
/** One turn's keys: every test below stands in one turn. */
const keys = new CallKeys();
const callKey = (c: ReturnType<typeof call>) => keys.key(c);

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

describe('CallKeys', () => {
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

  it('holds a number for each distinct call, never the arguments themselves', () => {
    expect(callKey(call('1', '{"secret":"do not keep me"}'))).toMatch(/^echo#\d+$/);
  });

  it('compares the canonical JSON exactly: two calls whose 32-bit FNV-1a hashes collide differ', () => {
    // These two texts have the same FNV-1a hash (1832792024), which the guard used to compare.
    expect(callKey(call('1', '{"q":"vpv3fapj97"}'))).not.toBe(callKey(call('2', '{"q":"z5qdykimp4"}')));
  });
});

describe('refuseRepeats', () => {
  it('refuses, in batch order, the calls past the limit; denied calls do not count', () => {
    const calls = [call('c1', '{}'), call('c2', '{}'), call('c3', '{}'), call('c4', '{}')];
    const denied = new Map([['c1', 'denied by the user']]);
    refuseRepeats(keys, calls, {}, 2, denied);
    expect([...denied]).toEqual([
      ['c1', 'denied by the user'],
      ['c4', repeated(2)],
    ]);
  });

  it('starts from the counts it is given and leaves them unchanged', () => {
    const before = { [callKey(call('c0', '{}'))]: 1 };
    const denied = new Map<string, string>();
    refuseRepeats(keys, [call('c1', '{}'), call('c2', '{}')], before, 2, denied);
    expect(before).toEqual({ [callKey(call('c0', '{}'))]: 1 });
    expect([...denied.keys()]).toEqual(['c2']);
  });

  it('refuses nothing with the limit 0', () => {
    const denied = new Map<string, string>();
    refuseRepeats(keys, [call('c1', '{}'), call('c2', '{}')], { [callKey(call('c0', '{}'))]: 9 }, 0, denied);
    expect(denied.size).toBe(0);
  });
});

describe('countExecuted', () => {
  it('counts only the calls that were executed', () => {
    const calls = [call('c1', '{}'), call('c2', '{}'), call('c3', '{"a":1}')];
    const counts = countExecuted(keys, calls, new Set(['c1', 'c3']), { [callKey(calls[0]!)]: 1 }, 3);
    expect(counts).toEqual({ [callKey(calls[0]!)]: 2, [callKey(calls[2]!)]: 1 });
  });

  it('keeps no counts with the limit 0', () => {
    expect(countExecuted(keys, [call('c1', '{}')], new Set(['c1']), {}, 0)).toEqual({});
  });
});

import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/errors.js';
import { check } from '../../../src/testing/contracts/check.js';

describe('check (the contract suites’ assertion helper)', () => {
  it('equal compares with Object.is and names the value', () => {
    expect(() => check.equal(1, 1)).not.toThrow();
    expect(() => check.equal(Number.NaN, Number.NaN)).not.toThrow();
    expect(() => check.equal('1', 1, 'count')).toThrow('count: expected 1, got "1"');
  });

  it('deepEqual is structural, order sensitive and strict about keys', () => {
    expect(() => check.deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).not.toThrow();
    expect(() => check.deepEqual([1, 2], [2, 1], 'list')).toThrow('list[0]: expected 2, got 1');
    expect(() => check.deepEqual({ a: 1, b: undefined }, { a: 1 }, 'obj')).toThrow(
      'obj: expected keys ["a"], got ["a","b"]',
    );
    expect(() => check.deepEqual({ a: { b: 'x' } }, { a: { b: 'y' } }, 'obj')).toThrow('obj.a.b');
    expect(() => check.deepEqual([1], [1, 2], 'list')).toThrow('expected length 2, got 1');
    expect(() => check.deepEqual(null, {}, 'v')).toThrow('expected an object');
  });

  it('ok throws its message when the condition is false', () => {
    expect(() => check.ok(true, 'never')).not.toThrow();
    expect(() => check.ok(0, 'zero is falsy')).toThrow('zero is falsy');
  });

  it('rejects resolves with the AgentError of the expected code', async () => {
    const error = new AgentError('INVALID_INPUT', 'bad');
    await expect(check.rejects(Promise.reject(error), 'INVALID_INPUT')).resolves.toBe(error);
    await expect(check.rejects(async () => Promise.reject(error), 'INVALID_INPUT')).resolves.toBe(error);
  });

  it('rejects fails on a resolution, a wrong code, a plain Error, or a synchronous throw', async () => {
    await expect(check.rejects(Promise.resolve(1), 'INVALID_INPUT', 'save')).rejects.toThrow(
      'save: expected a rejection with INVALID_INPUT, but it resolved',
    );
    await expect(
      check.rejects(Promise.reject(new AgentError('STORAGE_ERROR', 'x')), 'INVALID_INPUT'),
    ).rejects.toThrow('got STORAGE_ERROR');
    await expect(check.rejects(Promise.reject(new Error('plain')), 'INVALID_INPUT')).rejects.toThrow(
      'expected an AgentError INVALID_INPUT, got Error: plain',
    );
    await expect(
      check.rejects(() => {
        throw new AgentError('INVALID_INPUT', 'sync');
      }, 'INVALID_INPUT'),
    ).rejects.toThrow('threw synchronously');
  });
});

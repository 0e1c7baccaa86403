import { describe, expect, it } from 'vitest';
import { prepareRequest } from '../../../src/runtime/steps/prepare-request.js';
import { fakePrompt, IDS } from './support.js';

/** A scope whose estimate is `tokens`, recording the system prompts it was asked about. */
function setup(tokens: number, compactionThreshold: number | null) {
  const prompt = fakePrompt();
  const estimated: string[] = [];
  const resolved: string[] = [];
  const scope = {
    resolveSourcedTools: async () => {
      // The estimate counts the sourced tools: they are resolved before it.
      resolved.push(`after ${estimated.length} estimates`);
    },
    prompt,
    estimateTokens: (systemPrompt: string) => {
      estimated.push(systemPrompt);
      return tokens;
    },
    compactionThreshold,
  };
  return { scope, prompt, estimated, resolved };
}

const signal = new AbortController().signal;

describe('prepareRequest', () => {
  it('estimates the request built with the turn’s dynamic sections', async () => {
    const { scope, prompt, estimated, resolved } = setup(10, 100);
    await prepareRequest(scope, { ...IDS, dynamicSections: ['weather: sunny'] }, signal);
    expect(resolved).toEqual(['after 0 estimates']);
    expect(prompt.builds).toEqual([['weather: sunny']]);
    expect(estimated).toEqual(['SYS|weather: sunny']);
  });

  it('asks for compaction only when the estimate is over the threshold', async () => {
    const input = { ...IDS, dynamicSections: [] };
    expect(await prepareRequest(setup(101, 100).scope, input, signal)).toEqual({ needsCompaction: true });
    expect(await prepareRequest(setup(100, 100).scope, input, signal)).toEqual({ needsCompaction: false });
    expect(await prepareRequest(setup(99, 100).scope, input, signal)).toEqual({ needsCompaction: false });
  });

  it('with compaction off, never asks for it and builds no prompt', async () => {
    const { scope, prompt, estimated, resolved } = setup(1_000_000, null);
    expect(await prepareRequest(scope, { ...IDS, dynamicSections: ['x'] }, signal)).toEqual({
      needsCompaction: false,
    });
    expect(prompt.builds).toEqual([]);
    expect(estimated).toEqual([]);
    // The tool sources are still asked: their tools are part of every request.
    expect(resolved).toEqual(['after 0 estimates']);
  });

  it('with no tool source, estimates at once', async () => {
    const { scope, estimated } = setup(10, 100);
    const input = { ...IDS, dynamicSections: [] };
    expect(await prepareRequest({ ...scope, resolveSourcedTools: null }, input, signal)).toEqual({
      needsCompaction: false,
    });
    expect(estimated).toEqual(['SYS']);
  });
});

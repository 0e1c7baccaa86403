/**
 * `AgentConfigSchema`: parsing fills every default exactly as the public contract fixes it, keeps what
 * the user set, and accepts the function-valued options (environment context, inspect).
 */
import { describe, it, expect } from 'vitest';
import * as z from 'zod/mini';
import type { InspectionEvent } from 'xstate';
import {
  AgentConfigSchema,
  CompactionConfigSchema,
  MemoryConfigSchema,
  RetryConfigSchema,
  type AgentConfig,
  type ResolvedAgentConfig,
} from '../src/index.js';

/** The documented defaults, written out independently of `src/config.ts`. */
const DOCUMENTED_DEFAULTS = {
  systemInstructions: [],
  toolTimeoutMs: 120_000,
  maxToolCallsPerTurn: 50,
  maxRepeatedToolCalls: 3,
  hookTimeoutMs: 30_000,
  storageTimeoutMs: 30_000,
  streamIdleTimeoutMs: 60_000,
  toolSourceTimeoutMs: 5_000,
  compaction: {
    enabled: true,
    thresholdRatio: 0.8,
    reservedOutputTokens: 20_000,
    bufferTokens: 13_000,
    keepRecentToolResults: 6,
    keepRecentRatio: 0.2,
    maxConsecutiveFailures: 3,
  },
  retry: { maxRetries: 4, initialDelayMs: 500, maxDelayMs: 30_000 },
  approval: { timeoutMs: 0 },
} as const;

function resolve(config: AgentConfig): ResolvedAgentConfig {
  return z.parse(AgentConfigSchema, config);
}

describe('AgentConfigSchema defaults', () => {
  it('fill every documented default for a config with only defaultModel, and add nothing else', () => {
    expect(resolve({ defaultModel: 'gpt-4o-mini' })).toStrictEqual({
      defaultModel: 'gpt-4o-mini',
      ...DOCUMENTED_DEFAULTS,
    });
  });

  it('leave the optional sections without defaults absent (personality, environment, memory, inspect)', () => {
    const resolved = resolve({ defaultModel: 'm' });
    for (const key of ['personality', 'environmentContext', 'memory', 'inspect']) {
      expect(resolved, key).not.toHaveProperty(key);
    }
  });

  it('fill the rest of a partly given compaction section', () => {
    const resolved = resolve({ defaultModel: 'm', compaction: { enabled: false, keepRecentToolResults: 2 } });
    expect(resolved.compaction).toEqual({
      ...DOCUMENTED_DEFAULTS.compaction,
      enabled: false,
      keepRecentToolResults: 2,
    });
  });

  it('fill the rest of a partly given retry section', () => {
    expect(resolve({ defaultModel: 'm', retry: { maxDelayMs: 60_000 } }).retry).toEqual({
      maxRetries: 4,
      initialDelayMs: 500,
      maxDelayMs: 60_000,
    });
  });

  it('fill maxItems 20, checkpointInterval 10 and consolidateAbove 100 in a memory section, and leave extractionModel unset', () => {
    expect(resolve({ defaultModel: 'm', memory: { namespace: 'user' } }).memory).toStrictEqual({
      namespace: 'user',
      maxItems: 20,
      checkpointInterval: 10,
      consolidateAbove: 100,
    });
  });

  it('keep every value the user set, zeros and false included', () => {
    const config = {
      defaultModel: 'm',
      systemInstructions: ['Be brief.'],
      personality: 'dry',
      toolTimeoutMs: 1,
      maxToolCallsPerTurn: 1,
      maxRepeatedToolCalls: 0,
      hookTimeoutMs: 1,
      storageTimeoutMs: 1,
      streamIdleTimeoutMs: 1,
      toolSourceTimeoutMs: 1,
      compaction: {
        enabled: false,
        thresholdRatio: 0.5,
        reservedOutputTokens: 0,
        bufferTokens: 0,
        keepRecentToolResults: 0,
        keepRecentRatio: 0.1,
        maxConsecutiveFailures: 1,
      },
      memory: {
        namespace: 'n',
        maxItems: 1,
        checkpointInterval: 1,
        extractionModel: 'small',
        consolidateAbove: 1,
      },
      retry: { maxRetries: 0, initialDelayMs: 0, maxDelayMs: 0 },
      approval: { policy: () => 'ask', timeoutMs: 0 },
    } satisfies AgentConfig;
    expect(resolve(config)).toStrictEqual(config);
  });

  it('match the section schemas parsed empty', () => {
    expect(z.parse(CompactionConfigSchema, {})).toEqual(DOCUMENTED_DEFAULTS.compaction);
    expect(z.parse(RetryConfigSchema, {})).toEqual(DOCUMENTED_DEFAULTS.retry);
    expect(z.parse(MemoryConfigSchema, { namespace: 'u' })).toEqual({
      namespace: 'u',
      maxItems: 20,
      checkpointInterval: 10,
      consolidateAbove: 100,
    });
  });

  it('give each parse its own default objects, so changing one resolved config cannot change another', () => {
    const first = resolve({ defaultModel: 'm' });
    const second = resolve({ defaultModel: 'm' });
    expect(first.compaction).not.toBe(second.compaction);
    expect(first.retry).not.toBe(second.retry);
    expect(first.approval).not.toBe(second.approval);
    expect(first.systemInstructions).not.toBe(second.systemInstructions);
    first.compaction.enabled = false;
    first.systemInstructions.push('x');
    expect(resolve({ defaultModel: 'm' })).toStrictEqual({ defaultModel: 'm', ...DOCUMENTED_DEFAULTS });
  });

  it("do not write into the caller's config object", () => {
    const config: AgentConfig = { defaultModel: 'm', compaction: { enabled: false } };
    resolve(config);
    expect(config).toStrictEqual({ defaultModel: 'm', compaction: { enabled: false } });
  });
});

describe('AgentConfigSchema environmentContext', () => {
  it('accepts a record of strings', () => {
    const environmentContext = { os: 'linux', locale: 'fr-FR' };
    expect(resolve({ defaultModel: 'm', environmentContext }).environmentContext).toEqual(environmentContext);
  });

  it('accepts a function and keeps that very function, to be called each turn', () => {
    const environment = () => ({ time: new Date(0).toISOString() });
    expect(resolve({ defaultModel: 'm', environmentContext: environment }).environmentContext).toBe(
      environment,
    );
  });

  it('accepts an async function', () => {
    const environment = async () => ({ battery: '80%' });
    expect(resolve({ defaultModel: 'm', environmentContext: environment }).environmentContext).toBe(
      environment,
    );
  });

  it.each<[string, unknown]>([
    ['a record with a number', { cores: 8 }],
    ['a string', 'os: linux'],
    ['an array', [['os', 'linux']]],
    ['null', null],
  ])('rejects %s', (_what, environmentContext) => {
    expect(z.safeParse(AgentConfigSchema, { defaultModel: 'm', environmentContext }).success).toBe(false);
  });
});

describe('AgentConfigSchema inspect', () => {
  it('accepts a function and keeps it', () => {
    const inspect = (_event: InspectionEvent) => {};
    expect(resolve({ defaultModel: 'm', inspect }).inspect).toBe(inspect);
  });

  it('accepts an observer object and keeps it', () => {
    const observer = { next: (_event: InspectionEvent) => {}, error: () => {}, complete: () => {} };
    expect(resolve({ defaultModel: 'm', inspect: observer }).inspect).toBe(observer);
  });

  it.each<[string, unknown]>([
    ['a string', 'console'],
    ['a boolean', true],
    ['null', null],
  ])('rejects %s', (_what, inspect) => {
    expect(z.safeParse(AgentConfigSchema, { defaultModel: 'm', inspect }).success).toBe(false);
  });
});

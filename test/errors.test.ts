/**
 * `AgentError` and its helpers: for every code, the shape of the error (code, sentence-only message,
 * retryable, source, cause, `toJSON()`), recognition across copies of the package, and the
 * readable rendering of zod issues.
 */
import { recoveryExhausted } from '../src/server/recovery.js';
import { describe, it, expect } from 'vitest';
import * as z from 'zod/mini';
import {
  AgentError,
  AGENT_ERROR_CODES,
  AgentErrorDataSchema,
  type AgentErrorCode,
  type ErrorSource,
} from '../src/index.js';
import { Errors, describeError, formatIssues, toAgentError } from '../src/errors.js';
import { AgentConfigSchema } from '../src/config.js';
import { ServerErrors } from '../src/server/http.js';
import { MessageSchema, SessionEventSchema } from '../src/types.js';

const cause = new Error('root cause');

/**
 * For every code: the `Errors.*` constructor that makes it, the source it defaults to, and what
 * its message must say about the offender.
 */
const byCode: Record<AgentErrorCode, { make: () => AgentError; source: ErrorSource; says: string[] }> = {
  NO_MODEL_PROVIDER: { make: () => Errors.noModelProvider(), source: 'agent', says: ['ModelProvider'] },
  NAME_CONFLICT: {
    make: () => Errors.nameConflict('tool', 'search'),
    source: 'agent',
    says: ['tool', "'search'"],
  },
  SKILL_DEPENDENCY_NOT_MET: {
    make: () => Errors.skillDependencyNotMet('refactor', 'write_file'),
    source: 'agent',
    says: ["'refactor'", "'write_file'"],
  },
  PLUGIN_INIT_FAILED: {
    make: () => Errors.pluginInitFailed('audit', cause),
    source: 'plugin',
    says: ["'audit'", 'root cause'],
  },
  STORAGE_DUPLICATE: {
    make: () => Errors.storageDuplicate('memory'),
    source: 'storage',
    says: ['memory storage'],
  },
  INVALID_DEFAULT_MODEL: {
    make: () => Errors.invalidDefaultModel('gpt-5'),
    source: 'agent',
    says: ["'gpt-5'"],
  },
  SESSION_BUSY: { make: () => Errors.sessionBusy(), source: 'agent', says: ['session'] },
  TURN_BUSY: { make: () => Errors.turnBusy(), source: 'agent', says: ['turn'] },
  MODEL_NOT_SUPPORTED: { make: () => Errors.modelNotSupported('tiny'), source: 'agent', says: ["'tiny'"] },
  PROVIDER_ERROR: { make: () => Errors.provider('HTTP 503'), source: 'provider', says: ['HTTP 503'] },
  TOOL_EXECUTION_ERROR: {
    make: () => toAgentError(cause, 'TOOL_EXECUTION_ERROR'),
    source: 'tool',
    says: ['root cause'],
  },
  TOOL_TIMEOUT: { make: () => Errors.toolTimeout('slow', 1500), source: 'tool', says: ["'slow'", '1500ms'] },
  // Not raised by the runtime (an unknown tool is an error result the model reads); the codes
  // stay for providers, storages and apps that report them.
  TOOL_NOT_FOUND: {
    make: () => new AgentError('TOOL_NOT_FOUND', "tool 'ghost'"),
    source: 'tool',
    says: ["'ghost'"],
  },
  SKILL_NOT_FOUND: {
    make: () => new AgentError('SKILL_NOT_FOUND', "skill 'ghost'"),
    source: 'agent',
    says: ["'ghost'"],
  },
  SESSION_NOT_FOUND: { make: () => Errors.sessionNotFound('s-42'), source: 'agent', says: ["'s-42'"] },
  STORAGE_ERROR: {
    make: () => Errors.storage('quota exceeded', cause),
    source: 'storage',
    says: ['quota exceeded'],
  },
  MAX_TOOL_CALLS_EXCEEDED: { make: () => Errors.maxToolCallsExceeded(50), source: 'agent', says: ['50'] },
  COMPACT_ERROR: {
    make: () => Errors.compact('summary too long', cause),
    source: 'agent',
    says: ['summary too long'],
  },
  REQUEST_CANCELLED: { make: () => Errors.requestCancelled(), source: 'agent', says: ['cancelled'] },
  INVALID_INPUT: {
    make: () => Errors.invalidInput('input: the message is empty'),
    source: 'agent',
    says: ['empty'],
  },
  REQUEST_BLOCKED: { make: () => Errors.requestBlocked('offline'), source: 'agent', says: ['offline'] },
  SESSION_CLOSED: { make: () => Errors.sessionClosed(), source: 'agent', says: ['closed'] },
  HOOK_FAILED: {
    make: () => Errors.hookFailed('audit', 'pre_request', cause),
    source: 'plugin',
    says: ["'audit'", 'pre_request', 'root cause'],
  },
  INTERNAL_ERROR: {
    make: () => Errors.internal('the endTurn step crashed'),
    source: 'agent',
    says: ['endTurn'],
  },
  MEMORY_FAILED: {
    make: () => Errors.memoryFailed('extraction output invalid', cause),
    source: 'agent',
    says: ['extraction'],
  },
  SESSION_LOCKED: { make: () => Errors.sessionLocked('s-1'), source: 'agent', says: ['s-1', 'another tab'] },
  SESSION_WRITER_REPLACED: { make: () => Errors.writerReplaced('s-1'), source: 'storage', says: ['s-1'] },
  APPROVAL_PENDING: { make: () => Errors.approvalPending(['c1', 'c2']), source: 'agent', says: ['c1, c2'] },
  APPROVAL_NOT_PENDING: { make: () => Errors.approvalNotPending('c9'), source: 'agent', says: ['c9'] },
  OUTPUT_INVALID: {
    make: () => Errors.outputInvalid('final_answer arguments invalid', cause),
    source: 'agent',
    says: ['final_answer'],
  },
  BUDGET_EXCEEDED: {
    make: () => Errors.budgetExceeded('turn budget of $0.01 spent'),
    source: 'agent',
    says: ['$0.01'],
  },
  COST_UNKNOWN: { make: () => Errors.costUnknown('m-1'), source: 'agent', says: ["'m-1'", 'token budgets'] },
  TOOL_SOURCE_UNAVAILABLE: {
    make: () => Errors.toolSourceUnavailable('mcp:notes', 'fetch failed', cause),
    source: 'agent',
    says: ['mcp:notes', 'fetch failed'],
  },
  UNAUTHORIZED: { make: () => ServerErrors.unauthorized(), source: 'agent', says: ['not authorized'] },
  SERVER_BUSY: { make: () => ServerErrors.serverBusy(1000), source: 'agent', says: ['1000 open sessions'] },
  RECOVERY_EXHAUSTED: { make: () => recoveryExhausted(3), source: 'agent', says: ['3 times without progress'] },
};

describe('every error code', () => {
  it('has an Errors.* constructor in this table (and the table has no stale code)', () => {
    expect(Object.keys(byCode).sort()).toEqual([...AGENT_ERROR_CODES].sort());
  });

  describe.each(AGENT_ERROR_CODES)('%s', (code) => {
    const { make, source, says } = byCode[code];

    it('new AgentError(code, message) has the code, the sentence as message, retryable false, the default source', () => {
      const error = new AgentError(code, 'something happened');
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(AgentError);
      expect(error.name).toBe('AgentError');
      expect(error.code).toBe(code);
      expect(error.message).toBe('something happened');
      expect(error.retryable).toBe(false);
      expect(error.source).toBe(source);
      expect(error.cause).toBeUndefined();
      expect(error.retryAfterMs).toBeUndefined();
    });

    it('the Errors constructor gives the same code and source, and a message naming the offender', () => {
      const error = make();
      expect(error).toBeInstanceOf(AgentError);
      expect(error.code).toBe(code);
      expect(error.message).not.toContain(`[${code}]`);
      expect(error.retryable).toBe(false);
      expect(error.source).toBe(source);
      for (const part of says) expect(error.message).toContain(part);
    });

    it('toJSON() is plain data that AgentErrorDataSchema accepts, with no stack or cause', () => {
      const error = new AgentError(code, 'x', { cause, retryable: true });
      const data = error.toJSON();
      expect(z.parse(AgentErrorDataSchema, data)).toEqual(data);
      expect(data).toEqual({ code, message: 'x', retryable: true, source });
      expect(JSON.parse(JSON.stringify(error))).toEqual(data);
    });
  });
});

describe('AgentError messages', () => {
  it('are the sentence alone: the code is in code, not in the text', () => {
    const error = Errors.turnBusy();
    expect(error.code).toBe('TURN_BUSY');
    expect(error.message).toBe('a turn is already running in this session');
    expect(String(error)).toBe('AgentError: a turn is already running in this session');
  });

  it('drop a prefix of their own code that a caller wrote in', () => {
    expect(new AgentError('TURN_BUSY', '[TURN_BUSY] already running').message).toBe('already running');
  });

  it("keep text that only looks like another code's prefix", () => {
    expect(new AgentError('TURN_BUSY', '[SESSION_BUSY] x').message).toBe('[SESSION_BUSY] x');
  });
});

describe('AgentError options', () => {
  it('keep retryable, an explicit source, the cause and retryAfterMs', () => {
    const options = { retryable: true, source: 'plugin', cause, retryAfterMs: 2_000 } as const;
    const error = new AgentError('STORAGE_ERROR', 'x', options);
    expect(error.retryable).toBe(true);
    expect(error.source).toBe('plugin');
    expect(error.cause).toBe(cause);
    expect(error.retryAfterMs).toBe(2_000);
  });

  it('Errors.provider passes retryable and retryAfterMs through, and its source stays provider', () => {
    const error = Errors.provider('429 rate limited', { retryable: true, retryAfterMs: 1_500, cause });
    expect(error).toMatchObject({
      code: 'PROVIDER_ERROR',
      retryable: true,
      retryAfterMs: 1_500,
      source: 'provider',
    });
    expect(error.cause).toBe(cause);
  });

  it('keep the cause given to the Errors constructors that take one', () => {
    for (const error of [
      Errors.pluginInitFailed('p', cause),
      Errors.internal('x', cause),
      Errors.storage('s', cause),
      Errors.compact('c', cause),
      Errors.invalidInput('i', cause),
      Errors.hookFailed('p', 'turn_start', cause),
      Errors.memoryFailed('m', cause),
    ]) {
      expect(error.cause, error.code).toBe(cause);
    }
  });
});

describe('AgentError.isInstance', () => {
  const marker = Symbol.for('youyou-agent.error');

  /** What an AgentError made by a second copy of the package (another bundle chunk) looks like. */
  class ForeignAgentError extends Error {
    readonly code = 'TURN_BUSY';
    readonly [marker] = true;
  }

  it('is true for an AgentError', () => {
    expect(AgentError.isInstance(Errors.sessionBusy())).toBe(true);
  });

  it('is true for an error from another copy of the package, which instanceof misses', () => {
    const foreign = new ForeignAgentError('[TURN_BUSY] x');
    expect(foreign instanceof AgentError).toBe(false);
    expect(AgentError.isInstance(foreign)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['a plain Error', new Error('[TURN_BUSY] x')],
    ['a look-alike object', { name: 'AgentError', code: 'TURN_BUSY', message: '[TURN_BUSY] x' }],
    ['an object with a string marker key', { 'youyou-agent.error': true }],
    ['a string', '[TURN_BUSY] x'],
    ['null', null],
    ['undefined', undefined],
  ])('is false for %s', (_what, value) => {
    expect(AgentError.isInstance(value)).toBe(false);
  });
});

describe('toAgentError', () => {
  it('returns an AgentError unchanged, whatever code is asked for', () => {
    const original = Errors.turnBusy();
    expect(toAgentError(original, 'PROVIDER_ERROR')).toBe(original);
  });

  it('wraps an Error with the given code and options, keeping its message and it as cause', () => {
    const wrapped = toAgentError(new TypeError('fetch failed'), 'PROVIDER_ERROR', { retryable: true });
    expect(wrapped).toBeInstanceOf(AgentError);
    expect(wrapped).toMatchObject({ code: 'PROVIDER_ERROR', retryable: true, source: 'provider' });
    expect(wrapped.message).toBe('fetch failed');
    expect(wrapped.cause).toBeInstanceOf(TypeError);
  });

  it('wraps thrown strings and objects readably', () => {
    expect(toAgentError('boom', 'TOOL_EXECUTION_ERROR').message).toBe('boom');
    expect(toAgentError({ status: 500 }, 'STORAGE_ERROR').message).toBe('{"status":500}');
  });
});

describe('describeError', () => {
  it('survives values JSON cannot serialize', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeError(circular)).toBe('[object Object]');
    expect(describeError(undefined)).toBe('undefined');
    expect(describeError(10n)).toBe('10');
  });
});

describe('formatIssues', () => {
  function issuesOf(schema: z.ZodMiniType, value: unknown) {
    const result = z.safeParse(schema, value);
    if (result.success) throw new Error('expected a parse failure');
    return result.error.issues;
  }

  it('renders nested paths under the root, one `path: problem` per issue joined by `; `', () => {
    const issues = issuesOf(AgentConfigSchema, {
      defaultModel: 'm',
      retry: { maxRetries: -1 },
      compaction: { a: 1, b: 2 },
      x: 1,
    });
    expect(formatIssues(issues, 'config')).toBe(
      "config.compaction: unknown keys 'a', 'b'; config.retry.maxRetries: must be ≥ 0; config: unknown key 'x'",
    );
  });

  it('renders array indices as path segments, without a root when none is given', () => {
    const issues = issuesOf(MessageSchema, { type: 'user', content: [{ type: 'text', text: 1 }] });
    expect(formatIssues(issues)).toBe('content.0.text: expected string');
  });

  it('names the root as (root) when the value itself is wrong and no root is given', () => {
    expect(formatIssues(issuesOf(AgentConfigSchema, 5))).toBe('(root): expected object');
    expect(formatIssues(issuesOf(AgentConfigSchema, 5), 'config')).toBe('config: expected object');
  });

  it.each<[string, z.ZodMiniType, unknown, string]>([
    [
      'a bad format',
      SessionEventSchema,
      { timestamp: 'x', payload: { type: 'system_message', content: '' } },
      'v.timestamp: invalid datetime',
    ],
    ['a too short string', z.string().check(z.minLength(1)), '', 'v: must be ≥ 1 in length'],
    ['a too long string', z.string().check(z.maxLength(3)), 'abcd', 'v: must be ≤ 3 in length'],
    ['an exclusive minimum', z.number().check(z.gt(0)), 0, 'v: must be > 0'],
    ['an exclusive maximum', z.number().check(z.lt(3)), 4, 'v: must be < 3'],
    ['a multiple', z.number().check(z.multipleOf(5)), 4, 'v: must be a multiple of 5'],
    ['an enum', z.enum(['a', 'b']), 'c', 'v: expected one of "a", "b"'],
    ['a union', z.union([z.string(), z.number()]), true, 'v: matches none of the allowed shapes'],
    [
      'an unknown discriminator',
      MessageSchema,
      { type: 'nope' },
      'v.type: matches none of the allowed shapes',
    ],
    ['a refinement', z.string().check(z.refine(() => false, 'must be a city')), 'x', 'v: must be a city'],
  ])('describes %s', (_what, schema, value, expected) => {
    expect(formatIssues(issuesOf(schema, value), 'v')).toBe(expected);
  });

  it('is what Errors.invalidInputFromIssues puts in its message', () => {
    const issues = issuesOf(AgentConfigSchema, { defaultModel: 'm', retry: { maxRetries: -1 } });
    const error = Errors.invalidInputFromIssues('config', issues);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe('invalid config: config.retry.maxRetries: must be ≥ 0');
  });
});

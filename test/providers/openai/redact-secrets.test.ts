/** `SecretRedactor` on its own: what it replaces, what it keeps, what it drops. */
import { describe, expect, it } from 'vitest';
import { AgentError, Errors } from '../../../src/errors.js';
import { REDACTED, SecretRedactor } from '../../../src/providers/openai/redact-secrets.js';

describe('SecretRedactor', () => {
  it('replaces every occurrence, the longest secret first, and ignores short or missing values', () => {
    const redactor = new SecretRedactor(['abcdefgh', 'abcdefgh-and-more', 'short', undefined]);
    expect(redactor.text('abcdefgh-and-more / abcdefgh / short')).toBe(`${REDACTED} / ${REDACTED} / short`);
  });

  it('returns the same error when there is nothing to redact', () => {
    const error = Errors.provider('boom', { retryable: true });
    expect(new SecretRedactor(['tiny']).error(error)).toBe(error);
  });

  it('keeps code, retryability, source and retryAfterMs, and redacts message and stack', () => {
    const error = new AgentError('PROVIDER_ERROR', 'key sk-secret-value leaked', {
      retryable: true,
      retryAfterMs: 1500,
    });
    const copy = new SecretRedactor(['sk-secret-value']).error(error);
    expect(copy).toMatchObject({
      code: 'PROVIDER_ERROR',
      retryable: true,
      source: 'provider',
      retryAfterMs: 1500,
      message: `key ${REDACTED} leaked`,
    });
    expect(copy.stack).not.toContain('sk-secret-value');
  });

  it('copies a cause chain as plain data: errors, arrays and plain objects, redacted; other objects dropped', () => {
    const secret = 'sk-secret-value';
    const inner = Object.assign(new Error(`socket said ${secret}`), { code: 'ECONNRESET', errno: -104 });
    const outer = Object.assign(new Error(`fetch failed for ${secret}`, { cause: inner }), {
      status: 401,
      headers: new Headers({ 'x-echo': secret }),
      error: { message: `bad ${secret}`, list: [secret, 1, true, null] },
      request: new URL(`http://127.0.0.1/?key=${secret}`),
      [`field-${secret}`]: 'named after the key',
    });
    const copy = new SecretRedactor([secret]).error(Errors.provider('x', { cause: outer }));
    const cause = copy.cause as Error & Record<string, unknown>;
    expect(cause).toBeInstanceOf(Error);
    expect(cause).not.toBe(outer);
    expect(cause.message).toBe(`fetch failed for ${REDACTED}`);
    expect(cause.status).toBe(401);
    expect(cause.error).toEqual({ message: `bad ${REDACTED}`, list: [REDACTED, 1, true, null] });
    expect(cause.headers).toBeUndefined();
    expect(cause.request).toBeUndefined();
    expect(cause[`field-${REDACTED}`]).toBe('named after the key');
    expect(cause.cause).toMatchObject({
      message: `socket said ${REDACTED}`,
      code: 'ECONNRESET',
      errno: -104,
    });
  });

  it('survives a cycle and a getter that throws', () => {
    const body: Record<string, unknown> = { message: 'sk-secret-value' };
    body['self'] = body;
    Object.defineProperty(body, 'broken', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    const copy = new SecretRedactor(['sk-secret-value']).error(Errors.provider('x', { cause: body }));
    expect((copy.cause as Record<string, unknown>)['message']).toBe(REDACTED);
    expect(JSON.stringify(copy.cause, (key, value: unknown) => (key === 'self' ? '…' : value))).not.toContain(
      'sk-secret-value',
    );
  });
});

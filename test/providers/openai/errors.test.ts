import { describe, expect, it } from 'vitest';
import {
  errorBodyMessage,
  httpStatusError,
  isRetryableStatus,
  isTransientErrorBody,
  retryAfterMsFromHeaders,
} from '../../../src/providers/openai/errors.js';

const headers = (entries: Record<string, string>) => new Headers(entries);

describe('isRetryableStatus', () => {
  it('retries 408, 409, 429 and 5xx only', () => {
    const statuses = [400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503, 504, 529];
    expect(statuses.filter(isRetryableStatus)).toEqual([408, 409, 429, 500, 502, 503, 504, 529]);
  });
});

describe('retryAfterMsFromHeaders', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads retry-after-ms first, then retry-after in seconds', () => {
    expect(retryAfterMsFromHeaders(headers({ 'retry-after-ms': '250', 'retry-after': '3' }), now)).toBe(250);
    expect(retryAfterMsFromHeaders(headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(retryAfterMsFromHeaders(headers({ 'retry-after': '0.5' }), now)).toBe(500);
  });

  it('reads retry-after as an HTTP date relative to now, never negative', () => {
    expect(retryAfterMsFromHeaders(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:20 GMT' }), now)).toBe(
      20_000,
    );
    expect(retryAfterMsFromHeaders(headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
  });

  it('ignores missing, negative and unparseable values', () => {
    expect(retryAfterMsFromHeaders(undefined, now)).toBeUndefined();
    expect(retryAfterMsFromHeaders(headers({}), now)).toBeUndefined();
    expect(retryAfterMsFromHeaders(headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMsFromHeaders(headers({ 'retry-after-ms': '-5', 'retry-after': '2' }), now)).toBe(2000);
  });
});

describe('httpStatusError', () => {
  it('names the provider and status, keeps the server message, and sets retryAfterMs only when retryable', () => {
    const limited = httpStatusError('acme', {
      status: 429,
      serverMessage: 'slow down',
      headers: headers({ 'retry-after': '2' }),
    });
    expect(limited.message).toBe("provider 'acme': HTTP 429: slow down");
    expect([limited.code, limited.source, limited.retryable, limited.retryAfterMs]).toEqual([
      'PROVIDER_ERROR',
      'provider',
      true,
      2000,
    ]);
    const denied = httpStatusError('acme', { status: 403, headers: headers({ 'retry-after': '2' }) });
    expect([denied.retryable, denied.retryAfterMs, denied.message]).toEqual([
      false,
      undefined,
      "provider 'acme': HTTP 403",
    ]);
  });

  it('lets x-should-retry override the status', () => {
    expect(
      httpStatusError('a', { status: 400, headers: headers({ 'x-should-retry': 'true' }) }).retryable,
    ).toBe(true);
    expect(
      httpStatusError('a', { status: 500, headers: headers({ 'x-should-retry': 'false' }) }).retryable,
    ).toBe(false);
  });
});

describe('isTransientErrorBody', () => {
  it.each([
    [{ code: 400, message: 'Token limit reached' }, false],
    [{ code: 429, message: 'Too many' }, true],
    [{ code: '503', message: 'x' }, true],
    [
      {
        status_code: 400,
        type: 'invalid_request_error',
        code: 'tool_use_failed',
        message: 'Tool call validation failed',
      },
      false,
    ],
    [{ type: 'server_error', message: 'The server had an error' }, true],
    [{ code: 'rate_limit_exceeded', message: 'x' }, true],
    [{ type: 'overloaded_error', message: 'Overloaded' }, true],
    [{ message: 'Service Unavailable' }, true],
    [{ message: 'context length exceeded' }, false],
    ['a string', false],
    [null, false],
  ])('%j → %s', (body, transient) => {
    expect(isTransientErrorBody(body)).toBe(transient);
  });
});

describe('errorBodyMessage', () => {
  it('finds the message in the common body shapes', () => {
    expect(errorBodyMessage({ message: 'a' })).toBe('a');
    expect(errorBodyMessage({ error: { message: 'b' } })).toBe('b');
    expect(errorBodyMessage({ error: 'c' })).toBe('c');
    expect(errorBodyMessage('d')).toBe('d');
    expect(errorBodyMessage({ detail: 'x' })).toBeUndefined();
    expect(errorBodyMessage(undefined)).toBeUndefined();
  });
});

/**
 * The HTTP vocabulary of the handler: JSON answers, errors as `{ error: { code, message } }`
 * with the status each code maps to, and request bodies read with a size and a time limit.
 * @module
 */
import { AgentError, Errors } from '../errors.js';
import type { AgentErrorCode } from '../types.js';

import { asAgentError, publicError } from './public-error.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, readBody } from './read-body.js';

/** The HTTP status of each error code the handler answers with; others are 500. */
const STATUS: Partial<Record<AgentErrorCode, number>> = {
  UNAUTHORIZED: 401,
  SESSION_NOT_FOUND: 404,
  INVALID_INPUT: 400,
  MODEL_NOT_SUPPORTED: 400,
  TURN_BUSY: 409,
  SESSION_BUSY: 409,
  SESSION_LOCKED: 409,
  SESSION_CLOSED: 409,
  APPROVAL_PENDING: 409,
  APPROVAL_NOT_PENDING: 409,
  SERVER_BUSY: 503,
};

/** The handler's own errors. */
export const ServerErrors = {
  unauthorized: () => new AgentError('UNAUTHORIZED', 'the request is not authorized'),
  serverBusy: (limit: number) =>
    new AgentError('SERVER_BUSY', `this instance holds ${limit} open sessions already`),
  userBusy: (limit: number) => new UserAtLimit(limit),
  shuttingDown: () => new AgentError('SERVER_BUSY', 'this instance is shutting down'),
} as const;

/** One user's open sessions at `maxOpenSessionsPerUser`: 429 with code `SERVER_BUSY`. */
export class UserAtLimit extends AgentError {
  constructor(limit: number) {
    super('SERVER_BUSY', `this user holds ${limit} open sessions already`);
  }
}

/** A body over {@link MAX_BODY_BYTES}: 413 with code `INVALID_INPUT`. */
export class BodyTooLarge extends AgentError {
  constructor() {
    super('INVALID_INPUT', `the request body is over ${MAX_BODY_BYTES} bytes`);
  }
}

/** A path that matches no route: 404 with code `INVALID_INPUT`. */
export class NoRoute extends AgentError {
  constructor(method: string, pathname: string) {
    super('INVALID_INPUT', `no route ${method} ${pathname}`);
  }
}

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** An empty answer (204, 202). */
export function empty(status: number): Response {
  return new Response(null, { status, headers: { 'cache-control': 'no-store' } });
}

/**
 * The answer for a failure: its code, the status the code maps to, and a message that carries no
 * infrastructure detail (a storage, provider or internal error says its code's fixed sentence;
 * anything not an `AgentError` is a 500 `INTERNAL_ERROR`). What was hidden goes to
 * `report`.
 */
export function errorResponse(error: unknown, report: (error: AgentError) => void = () => {}): Response {
  if (error instanceof NoRoute) return json(404, { error: { code: error.code, message: error.message } });
  if (error instanceof BodyTooLarge)
    return json(413, { error: { code: error.code, message: error.message } });
  if (error instanceof UserAtLimit)
    return json(429, { error: { code: error.code, message: error.message } }, { 'retry-after': '1' });
  const agentError = asAgentError(error);
  const status = STATUS[agentError.code] ?? 500;
  const shown = publicError(agentError);
  if (shown !== agentError) report(agentError);
  const headers: Record<string, string> = status === 503 ? { 'retry-after': '1' } : {};
  return json(status, { error: { code: shown.code, message: shown.message } }, headers);
}

/**
 * The request's JSON body; an empty body is `{}`. Bounded: more than {@link MAX_BODY_BYTES}
 * rejects with {@link BodyTooLarge} as soon as it is seen (a `content-length` over it is not
 * read at all), and a body still arriving after {@link BODY_TIMEOUT_MS} is `INVALID_INPUT`.
 */
export async function readJson(request: Request): Promise<unknown> {
  const read = await readBody(request);
  if (!read.ok) {
    if (read.reason === 'too_large') throw new BodyTooLarge();
    throw Errors.invalidInput(
      read.reason === 'late'
        ? `the request body did not arrive within ${BODY_TIMEOUT_MS} ms`
        : 'the request body could not be read',
    );
  }
  const bytes = read.bytes;
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw Errors.invalidInput('the request body is not valid JSON');
  }
}

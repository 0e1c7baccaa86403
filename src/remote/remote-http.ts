/**
 * The client's requests: the app's headers on each, JSON in and out, and a failed answer turned
 * into the `AgentError` the server named (a code the client does not know, or an answer that is
 * not the server's error shape, is `INTERNAL_ERROR`).
 * @module
 */
import * as z from 'zod/mini';
import { AgentError } from '../errors.js';
import { AGENT_ERROR_CODES, type AgentErrorCode, type ErrorSource } from '../types.js';

/** Where and how to reach the server. */
export interface RemoteTransport {
  /** Origin and base path, without a trailing slash. */
  base: string;
  headers: () => Promise<Record<string, string>>;
  fetch: typeof fetch;
  /** How long a command, or a stream's answer, may take. */
  requestTimeoutMs: number;
  /** How long a turn waits for a server to be reached again before it fails. */
  reconnectTimeoutMs: number;
}

/**
 * `promise`, or past `ms` a retryable `INTERNAL_ERROR` (after `abort()`, which
 * stops the request behind it). Bounds what a half-open connection would otherwise leave hanging.
 */
export function bounded<T>(promise: Promise<T>, ms: number, abort: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        abort();
        reject(new AgentError('INTERNAL_ERROR', 'the server did not answer', { retryable: true }));
      },
      Math.max(0, ms),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const ErrorBodySchema = /* @__PURE__ */ (() =>
  z.looseObject({ error: z.looseObject({ code: z.string(), message: z.string() }) }))();

/** The error of a failed answer. */
export async function errorOf(response: Response): Promise<AgentError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: said below
  }
  const parsed = z.safeParse(ErrorBodySchema, body);
  if (!parsed.success)
    return new AgentError('INTERNAL_ERROR', `the server answered ${response.status} without an error body`);
  const { code, message } = parsed.data.error;
  // Bounded by hand: a length check would cost the page more than the rest of this schema.
  return agentError({ code, message: message.slice(0, 10_000), retryable: response.status === 503 });
}

/** A message from the server that breaks the protocol. */
export class ProtocolError extends AgentError {
  constructor(message: string) {
    super('INVALID_INPUT', `the server sent an invalid message: ${message}`);
  }
}

/**
 * `value` as `schema` checks it; else a `ProtocolError` saying it is `what` of the wrong shape,
 * with the path of its first wrong field.
 */
export function fromServer<T>(schema: z.ZodMiniType, value: unknown, what: string): T {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success)
    throw new ProtocolError(`${what} of the wrong shape (${parsed.error.issues[0]?.path.join('.')})`);
  return parsed.data as T;
}

const SOURCES: readonly string[] = ['provider', 'tool', 'plugin', 'storage', 'agent'];

/** An `AgentError` from the server's data of one; a code or source this client does not know is `INTERNAL_ERROR` / `agent`. */
export function agentError(data: {
  code: string;
  message: string;
  retryable?: boolean;
  source?: string;
}): AgentError {
  const known = (AGENT_ERROR_CODES as readonly string[]).includes(data.code);
  return new AgentError(known ? (data.code as AgentErrorCode) : 'INTERNAL_ERROR', data.message, {
    retryable: data.retryable === true,
    ...(data.source !== undefined && SOURCES.includes(data.source) && { source: data.source as ErrorSource }),
  });
}

/** Sends a request; a network failure is a retryable `INTERNAL_ERROR`. */
export async function send(
  transport: RemoteTransport,
  method: string,
  path: string,
  options: { body?: unknown; lastEventId?: string | null; signal?: AbortSignal } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...(await transport.headers()) };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.lastEventId) headers['last-event-id'] = options.lastEventId;
  try {
    return await transport.fetch(`${transport.base}${path}`, {
      method,
      headers,
      // No body when there is none: `JSON.stringify(undefined)` is `undefined`.
      body: JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new AgentError('INTERNAL_ERROR', `the server could not be reached (${method} ${path})`, {
      retryable: true,
      cause: error,
    });
  }
}

/**
 * Sends a request and reads its JSON answer (rejects with the server's error); the whole exchange,
 * the answer's body included, is bounded by `requestTimeoutMs`.
 */
export function call(
  transport: RemoteTransport,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const controller = new AbortController();
  const exchange = async () => {
    const response = await send(transport, method, path, { body, signal: controller.signal });
    if (!response.ok) throw await errorOf(response);
    if (response.status === 204 || response.status === 202) return null;
    try {
      return await response.json();
    } catch (error) {
      throw new AgentError('INTERNAL_ERROR', 'the server sent an answer that is not JSON', { cause: error });
    }
  };
  return bounded(exchange(), transport.requestTimeoutMs, () => controller.abort());
}

/** The path segment of an id. */
export const seg = (value: string): string => encodeURIComponent(value);

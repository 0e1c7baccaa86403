/**
 * The options of `createAgentHandler`, with their schema and defaults.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import type { ZodMiniType } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { Agent } from '../agent.js';
import type { AgentError } from '../errors.js';
import type { SessionConfig } from '../types.js';
import { parseInput } from '../validate.js';
import { ModelProxyOptionsSchema, type ModelProxyOptions } from './model-proxy.js';

/** Who is asking: what `authorize` returns for a request it accepts. */
export interface AuthorizedUser {
  /** The user's id: the owner of the sessions they create, and their storage `namespace`. */
  userId: string;
}

/**
 * The model proxy's settings (the proxy itself is mounted on `POST {basePath}/v1/chat/completions`):
 * the same options `proxyModelRequest` takes.
 */
export type ModelProxySettings = ModelProxyOptions;

/** Where an error reported to `onError` happened. */
export interface ErrorContext {
  /**
   * The route's name (`'create'`, `'turns'`, `'get'`, …); an error inside a turn's stream, which
   * outlives its request, is `'turns'`.
   */
  route: string;
  /** The caller, once authorized. */
  userId: string | null;
  /** The session the request names, if any. */
  sessionId: string | null;
}

/** How a handler recovers the turns of instances that stopped (`createAgentHandler`'s `recovery`). */
export interface RecoveryOptions {
  /** The sessions to recover, for the sweep. Without it, sessions are recovered on request only. */
  find?: () => Promise<readonly { sessionId: string; userId: string }[]>;
  /** How often the sweep runs, in ms. Default 5_000. */
  sweepIntervalMs?: number;
  /**
   * How many runs of one turn may die in a row without progress (a stored model response or tool
   * result); the next recovery ends the turn `failed` with `RECOVERY_EXHAUSTED`. Default 3.
   */
  maxAttempts?: number;
}

/** Options of `createAgentHandler`. */
export interface AgentHandlerOptions {
  /**
   * Builds the agent of one open session (an `Agent` holds one session at a time), for the user
   * who asks. Give its session storage the user's id as `namespace`, so each user's sessions
   * are apart in storage too.
   */
  agent: (scope: { userId: string }) => Agent | Promise<Agent>;
  /** Who is asking; `null` (or a throw) answers 401 and nothing else happens. */
  authorize: (request: Request) => AuthorizedUser | null | Promise<AuthorizedUser | null>;
  /** The structured-output schemas a remote turn may name (`output: { name }`). */
  outputs?: Record<string, ZodMiniType | $ZodType>;
  /** Where the routes are mounted. Default `'/agent'`. */
  basePath?: string;
  /** A session with no turn, no command and no stream open for this long is released. Default 60_000. */
  idleTimeoutMs?: number;
  /** The most sessions this instance holds; beyond it, 503 `SERVER_BUSY`. Default 1_000. */
  maxOpenSessions?: number;
  /**
   * The most sessions one user holds open on this instance (followers included); beyond it, 429
   * `SERVER_BUSY`. Default 20.
   */
  maxOpenSessionsPerUser?: number;
  /**
   * A turn survives its instance: when the instance that ran a turn stopped (a crash, a SIGKILL,
   * a deploy), another instance goes on with it under the same turn id, as `continueTurn()`
   * would. It starts on any request for the session (a reconnect and `GET …/events` included)
   * once the session's lease is free or expired, and every `sweepIntervalMs` over what `find()`
   * lists (`findInterruptedSessions` in `youyou-agent/postgres`). A turn awaiting approval is
   * parked until someone decides. `false` turns it off. Default: on, on request only.
   * @example
   * recovery: { find: () => findInterruptedSessions(sql), maxAttempts: 3 }
   */
  recovery?: false | RecoveryOptions;
  /** A model proxy for browser-side agents (the key stays on the server). */
  modelProxy?: ModelProxySettings;
  /**
   * Gets the detail of each failure a client reads only as its code's fixed sentence (a storage,
   * provider or internal error: its message may name hosts, ports, roles or an upstream's words),
   * and of every 500. Default: `console.error`. A throwing `onError` changes no answer.
   * @example
   * onError: (error, { route, userId, sessionId }) => logger.error({ route, userId, sessionId, code: error.code, cause: error.cause }, error.message)
   */
  onError?: (error: AgentError, context: ErrorContext) => void;
  /**
   * The config a session is created with, from what the page asked for (`POST /sessions`'s
   * `config`). The page is not trusted: by default only `modelId` is accepted, and only a model
   * one of the agent's providers lists; any other key (`systemPromptOverride` included) is 400
   * `INVALID_INPUT` naming it. Give a function to decide yourself: what it returns is used as is.
   * It is bounded by 10 s.
   * @example
   * sessionConfig: (requested, { userId }) => ({ modelId: requested.modelId ?? 'gpt-4.1-mini', systemPromptOverride: `The user is ${userId}.` })
   */
  sessionConfig?: (
    requested: Partial<SessionConfig>,
    scope: { userId: string },
  ) => SessionConfig | Promise<SessionConfig>;
  /**
   * The most bytes an event stream queues for a client that reads slower than the session
   * writes (what waits behind the frame being written; one frame larger than this is still
   * sent). A client further behind is disconnected; it reconnects and is replayed what it
   * missed. Default 8 MiB.
   */
  maxStreamBufferBytes?: number;
  /** The most turns (and continues) running at once on this instance; beyond it, 503 `SERVER_BUSY` with `Retry-After`. Default 256. */
  maxRunningTurns?: number;
  /**
   * The `/chat` routes, for the AI SDK's `useChat` (its UI message stream). Default `true`;
   * `false`: they are unknown routes (404).
   */
  uiMessageStream?: boolean;
}

const isFunction = (value: unknown) => typeof value === 'function';
const isSchema = (value: unknown) => typeof value === 'object' && value !== null && '_zod' in value;

const OptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    agent: z.custom<AgentHandlerOptions['agent']>(isFunction, 'must be a function'),
    authorize: z.custom<AgentHandlerOptions['authorize']>(isFunction, 'must be a function'),
    outputs: z.optional(z.record(z.string(), z.custom<$ZodType>(isSchema, 'must be a zod schema'))),
    basePath: z.optional(z.string().check(z.regex(/^(\/[A-Za-z0-9._~-]+)*$/))),
    idleTimeoutMs: z.optional(integer().check(z.positive())),
    maxOpenSessions: z.optional(integer().check(z.positive())),
    maxOpenSessionsPerUser: z.optional(integer().check(z.positive())),
    recovery: z.optional(
      z.union([
        z.literal(false),
        z.strictObject({
          find: z.optional(z.custom<NonNullable<RecoveryOptions['find']>>(isFunction, 'must be a function')),
          sweepIntervalMs: z.optional(integer().check(z.positive())),
          maxAttempts: z.optional(integer().check(z.positive())),
        }),
      ]),
    ),
    modelProxy: z.optional(ModelProxyOptionsSchema),
    onError: z.optional(
      z.custom<NonNullable<AgentHandlerOptions['onError']>>(isFunction, 'must be a function'),
    ),
    sessionConfig: z.optional(
      z.custom<NonNullable<AgentHandlerOptions['sessionConfig']>>(isFunction, 'must be a function'),
    ),
    maxStreamBufferBytes: z.optional(integer().check(z.positive())),
    maxRunningTurns: z.optional(integer().check(z.positive())),
    uiMessageStream: z.optional(z.boolean()),
  }))();

/** The options with their defaults. */
export interface ResolvedHandlerOptions {
  agent: AgentHandlerOptions['agent'];
  authorize: AgentHandlerOptions['authorize'];
  outputs: Record<string, $ZodType>;
  basePath: string;
  idleTimeoutMs: number;
  maxOpenSessions: number;
  maxOpenSessionsPerUser: number;
  /** `null` when recovery is off. */
  recovery: { find: RecoveryOptions['find'] | null; sweepIntervalMs: number; maxAttempts: number } | null;
  modelProxy: ModelProxySettings | null;
  /** Calls `onError` (or `console.error`); never throws. */
  reportError: (error: AgentError, context: ErrorContext) => void;
  sessionConfig: AgentHandlerOptions['sessionConfig'] | null;
  maxStreamBufferBytes: number;
  maxRunningTurns: number;
  uiMessageStream: boolean;
}

/** Checks the options (`INVALID_INPUT`) and fills in the defaults. */
export function resolveHandlerOptions(options: AgentHandlerOptions): ResolvedHandlerOptions {
  const parsed = parseInput(OptionsSchema, options, 'handler options');
  return {
    agent: parsed.agent,
    authorize: parsed.authorize,
    outputs: (parsed.outputs ?? {}) as Record<string, $ZodType>,
    basePath: parsed.basePath ?? '/agent',
    idleTimeoutMs: parsed.idleTimeoutMs ?? 60_000,
    maxOpenSessions: parsed.maxOpenSessions ?? 1_000,
    maxOpenSessionsPerUser: parsed.maxOpenSessionsPerUser ?? 20,
    recovery:
      parsed.recovery === false
        ? null
        : {
            find: parsed.recovery?.find ?? null,
            sweepIntervalMs: parsed.recovery?.sweepIntervalMs ?? 5_000,
            maxAttempts: parsed.recovery?.maxAttempts ?? 3,
          },
    modelProxy: parsed.modelProxy ?? null,
    maxStreamBufferBytes: parsed.maxStreamBufferBytes ?? 8 * 1024 * 1024,
    maxRunningTurns: parsed.maxRunningTurns ?? 256,
    reportError: safeReporter(parsed.onError),
    sessionConfig: parsed.sessionConfig ?? null,
    uiMessageStream: parsed.uiMessageStream ?? true,
  };
}

function safeReporter(onError: AgentHandlerOptions['onError']): ResolvedHandlerOptions['reportError'] {
  return (error, context) => {
    try {
      if (onError) onError(error, context);
      else console.error(`youyou-agent/server: ${error.code} on ${context.route}:`, error);
    } catch {
      // A broken logger must not change the answer.
    }
  };
}

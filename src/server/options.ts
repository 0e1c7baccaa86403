/**
 * The options of `createAgentHandler`, with their schema and defaults.
 * @module
 */
import * as z from 'zod/mini';
import type { ZodMiniType } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { Agent } from '../agent.js';
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
  /** A model proxy for browser-side agents (the key stays on the server). */
  modelProxy?: ModelProxySettings;
  /**
   * The most bytes an event stream queues for a client that reads slower than the session
   * writes (what waits behind the frame being written; one frame larger than this is still
   * sent). A client further behind is disconnected; it reconnects and is replayed what it
   * missed. Default 8 MiB.
   */
  maxStreamBufferBytes?: number;
  /** The most turns (and continues) running at once on this instance; beyond it, 503 `SERVER_BUSY` with `Retry-After`. Default 256. */
  maxRunningTurns?: number;
}

const isFunction = (value: unknown) => typeof value === 'function';
const isSchema = (value: unknown) => typeof value === 'object' && value !== null && '_zod' in value;

const OptionsSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    agent: z.custom<AgentHandlerOptions['agent']>(isFunction, 'must be a function'),
    authorize: z.custom<AgentHandlerOptions['authorize']>(isFunction, 'must be a function'),
    outputs: z.optional(z.record(z.string(), z.custom<$ZodType>(isSchema, 'must be a zod schema'))),
    basePath: z.optional(z.string().check(z.regex(/^(\/[A-Za-z0-9._~-]+)*$/))),
    idleTimeoutMs: z.optional(z.number().check(z.int(), z.positive())),
    maxOpenSessions: z.optional(z.number().check(z.int(), z.positive())),
    modelProxy: z.optional(ModelProxyOptionsSchema),
    maxStreamBufferBytes: z.optional(z.number().check(z.int(), z.positive())),
    maxRunningTurns: z.optional(z.number().check(z.int(), z.positive())),
  }))();

/** The options with their defaults. */
export interface ResolvedHandlerOptions {
  agent: AgentHandlerOptions['agent'];
  authorize: AgentHandlerOptions['authorize'];
  outputs: Record<string, $ZodType>;
  basePath: string;
  idleTimeoutMs: number;
  maxOpenSessions: number;
  modelProxy: ModelProxySettings | null;
  maxStreamBufferBytes: number;
  maxRunningTurns: number;
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
    modelProxy: parsed.modelProxy ?? null,
    maxStreamBufferBytes: parsed.maxStreamBufferBytes ?? 8 * 1024 * 1024,
    maxRunningTurns: parsed.maxRunningTurns ?? 256,
  };
}

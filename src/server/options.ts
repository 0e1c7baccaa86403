/**
 * The options of `createAgentHandler`, with their schema and defaults.
 * @module
 */
import * as z from 'zod/mini';
import type { ZodMiniType } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import type { Agent } from '../agent.js';
import { parseInput } from '../validate.js';

/** Who is asking: what `authorize` returns for a request it accepts. */
export interface AuthorizedUser {
  /** The user's id: the owner of the sessions they create, and their storage `namespace`. */
  userId: string;
}

/** The model proxy's settings (the proxy itself is mounted on `POST {basePath}/v1/chat/completions`). */
export interface ModelProxySettings {
  /** The upstream's base URL, e.g. `'https://api.openai.com/v1'`. */
  upstream: string;
  /** The key the upstream gets instead of the caller's `Authorization`; never sent back. */
  apiKey: string;
  /** The models a caller may ask for (others are refused with 400). Default: any. */
  models?: readonly string[];
  /** The most output tokens a request may ask for (`max_tokens` / `max_completion_tokens` are clamped). */
  maxOutputTokens?: number;
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
  /** A model proxy for browser-side agents (the key stays on the server). */
  modelProxy?: ModelProxySettings;
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
    modelProxy: z.optional(
      z.strictObject({
        upstream: z.url(),
        apiKey: z.string().check(z.minLength(1)),
        models: z.optional(z.readonly(z.array(z.string()))),
        maxOutputTokens: z.optional(z.number().check(z.int(), z.positive())),
      }),
    ),
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
  };
}

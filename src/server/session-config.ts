/**
 * The config a remote session is created with. The page asks (`POST /sessions`'s `config`); the
 * server decides. By default a page may pick a model, nothing else: a `systemPromptOverride` from
 * the page would let any user rewrite the instructions the app gives its agent.
 * @module
 */
import { AgentError, Errors } from '../errors.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import type { SessionConfig } from '../types.js';
import { parseInput } from '../validate.js';
import { SessionConfigSchema } from '../vocabulary/sessions.js';
import type { AgentHandlerOptions } from './options.js';

/** How long an app's `sessionConfig` may take. */
export const SESSION_CONFIG_TIMEOUT_MS = 10_000;

/** The keys a page may set without a `sessionConfig` of the app's own. */
const PAGE_KEYS: ReadonlySet<string> = new Set(['modelId']);

/**
 * The config to create the session with, from the page's `requested` one: checked against
 * `SessionConfig` (400 naming a wrong key), then given to `decide` (the app's `sessionConfig`) or,
 * without one, refused for any key but `modelId` (whose model the agent's providers must list,
 * as `newSession` checks).
 */
export async function sessionConfigFor(
  requested: unknown,
  userId: string,
  decide: AgentHandlerOptions['sessionConfig'] | null,
): Promise<SessionConfig> {
  const asked = parseInput(SessionConfigSchema, requested ?? {}, 'body.config');
  if (!decide) {
    for (const key of Object.keys(asked)) {
      if (!PAGE_KEYS.has(key)) {
        throw Errors.invalidInput(`body.config.${key} is not accepted from a client: the server sets it`);
      }
    }
    return asked;
  }
  let decided: unknown;
  try {
    decided = await withTimeout(Promise.resolve().then(() => decide(asked, { userId })), SESSION_CONFIG_TIMEOUT_MS);
  } catch (error) {
    // The app may refuse on purpose (an `AgentError` it throws goes to the caller as it is).
    if (AgentError.isInstance(error)) throw error;
    throw new AgentError('INTERNAL_ERROR', 'sessionConfig threw', { cause: error });
  }
  if (decided === TIMED_OUT) {
    throw new AgentError('INTERNAL_ERROR', `sessionConfig did not settle within ${SESSION_CONFIG_TIMEOUT_MS} ms`);
  }
  try {
    return parseInput(SessionConfigSchema, decided, 'the config sessionConfig returned');
  } catch (error) {
    // The app's mistake, not the caller's: a 500 whose detail goes to `onError`.
    throw new AgentError('INTERNAL_ERROR', (error as Error).message, { cause: error });
  }
}

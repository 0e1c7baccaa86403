/**
 * The demo's "server's model": when `npm start` has `OPENAI_API_KEY` in its environment, the dev
 * server mounts the model proxy at `/agent/v1/chat/completions`, and the page's agent talks to the
 * model through it. The key stays in the dev server's process; the page gets only the models it may
 * use and a token.
 *
 * The token is made at random when the dev server starts and handed to the pages it serves; the
 * proxy answers only requests that carry it (as `Authorization: Bearer <token>`, which is how
 * `OpenAIProvider` sends its `apiKey`). Another site open in the same browser cannot read it, so
 * it cannot spend the key; a restart of the dev server makes a new one (a reload picks it up).
 * @module
 */
import type { Plugin } from 'vite';
import { proxyModelRequest, type ModelProxyOptions } from '../../src/server.js';
import { carriesToken, makePageToken } from './page-token.js';
import { mountWebHandler, type Middleware } from './web-middleware.js';

/** Where the page sends its model requests (its `OpenAIProvider`'s `baseURL` is `/agent/v1`). */
export const SERVER_MODEL_PATH = '/agent/v1/chat/completions';

/** The longest answer the demo's server model gives, in tokens. */
const MAX_OUTPUT_TOKENS = 4_096;

/** The server's model, as the dev server holds it. */
export interface ServerModel {
  readonly proxy: ModelProxyOptions & { models: readonly string[] };
  /** What the page must send as its bearer token. */
  readonly token: string;
}

/** What the page learns about the server's model: never the key. */
export interface ServerModelForPage {
  readonly models: readonly string[];
  readonly token: string;
}

/**
 * The server's model from `env`, or `null` without `OPENAI_API_KEY`. `OPENAI_BASE_URL` is the
 * upstream (default OpenAI's); `OPENAI_MODELS` (comma-separated) or else `OPENAI_MODEL` the models
 * the page may use (default `gpt-4o-mini`).
 * @example
 * serverModelFromEnv({ OPENAI_API_KEY: 'sk-…', OPENAI_MODELS: 'gpt-4o-mini,gpt-4.1' });
 */
export function serverModelFromEnv(env: Record<string, string | undefined>): ServerModel | null {
  const apiKey = env['OPENAI_API_KEY']?.trim();
  if (!apiKey) return null;
  const listed = (env['OPENAI_MODELS'] ?? env['OPENAI_MODEL'] ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    proxy: {
      upstream: env['OPENAI_BASE_URL']?.trim() || 'https://api.openai.com/v1',
      apiKey,
      models: listed.length > 0 ? [...new Set(listed)] : ['gpt-4o-mini'],
      maxOutputTokens: MAX_OUTPUT_TOKENS,
    },
    token: makePageToken(),
  };
}

/** The part of `model` the page is given. */
export function forPage(model: ServerModel): ServerModelForPage {
  return { models: model.proxy.models, token: model.token };
}

/**
 * The middleware that answers {@link SERVER_MODEL_PATH}: 401 `UNAUTHORIZED` without the token,
 * else the model proxy. Every other request goes to `next`.
 * @example
 * server.middlewares.use(serverModelMiddleware(model));
 */
export function serverModelMiddleware(model: ServerModel): Middleware {
  return mountWebHandler(SERVER_MODEL_PATH, async (request) => {
    if (!carriesToken(request, model.token)) {
      return Response.json(
        { error: { code: 'UNAUTHORIZED', message: 'reload the demo page: its token is not this server’s' } },
        { status: 401 },
      );
    }
    return proxyModelRequest(request, model.proxy);
  });
}

/** A Vite plugin that mounts {@link serverModelMiddleware} on the dev server (`npm start` only). */
export function serverModelPlugin(model: ServerModel | null): Plugin {
  return {
    name: 'youyou-demo-server-model',
    apply: 'serve',
    configureServer(server) {
      if (!model) return;
      server.middlewares.use(serverModelMiddleware(model));
      server.config.logger.info(
        `  server's model: ${model.proxy.models.join(', ')} at ${model.proxy.upstream} (key kept on the server)`,
      );
    },
  };
}

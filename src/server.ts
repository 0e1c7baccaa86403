/**
 * `youyou-agent/server`: the agent on a server. `createAgentHandler` answers the routes a
 * `RemoteAgent` (from `youyou-agent/remote`) calls, as a web-standard
 * `(Request) => Promise<Response>`; `toNodeListener` mounts it on `node:http`.
 * `proxyModelRequest` forwards an in-page agent's Chat Completions requests with the server's
 * key, so the key stays off the page (the handler's `modelProxy` option mounts it).
 * @module
 */
export { createAgentHandler, type AgentHandler } from './server/handler.js';
export { toNodeListener } from './server/node-listener.js';
export type { AgentHandlerOptions, AuthorizedUser, ErrorContext, ModelProxySettings } from './server/options.js';
export {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  ModelProxyOptionsSchema,
  proxyModelRequest,
  type ModelProxyOptions,
} from './server/model-proxy.js';

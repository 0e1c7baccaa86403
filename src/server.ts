/**
 * `youyou-agent/server`: the agent on a server. `proxyModelRequest` forwards an in-page agent's
 * Chat Completions requests with the server's key, so the key stays off the page.
 * @module
 */
export {
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  ModelProxyOptionsSchema,
  proxyModelRequest,
  type ModelProxyOptions,
} from './server/model-proxy.js';

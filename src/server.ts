/**
 * `youyou-agent/server`: the agent on a server. `createAgentHandler` answers the routes a
 * `RemoteAgent` (from `youyou-agent/remote`) calls, as a web-standard
 * `(Request) => Promise<Response>`; `toNodeListener` mounts it on `node:http`.
 * @module
 */
export { createAgentHandler } from './server/handler.js';
export { toNodeListener } from './server/node-listener.js';
export type { AgentHandlerOptions, AuthorizedUser, ModelProxySettings } from './server/options.js';

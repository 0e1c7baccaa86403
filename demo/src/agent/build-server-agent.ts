/**
 * Builds server mode's agent: the page keeps only a `RemoteAgent` (through `RemoteChatAgent`);
 * the agent itself, its tools, model and sessions live in the demo server. Its models are the
 * scripted offline one and, when `npm start` has a key and the settings choose it, the server's
 * model (whose key stays there). The page's own endpoint settings do not apply here.
 * @module
 */
import type { ModelInfo } from 'youyou-agent';
import { OFFLINE_MODEL_ID, OfflineModelProvider } from '../model/offline-model.js';
import { demoUserId } from '../settings/demo-user.js';
import { agentServer, hasEndpoint, serverModel, type EndpointSettings } from '../settings/settings.js';
import type { DemoAgent } from './build-agent.js';
import { RemoteChatAgent } from './remote-chat-agent.js';

/**
 * The demo server's agent for this browser; `null` when this page has no demo server (a build).
 * @example
 * const demo = buildServerDemoAgent(settings);
 */
export function buildServerDemoAgent(settings: EndpointSettings): DemoAgent | null {
  const server = agentServer();
  if (!server) return null;
  const keyModel = settings.useServerModel ? serverModel() : null;
  const keyModels = (keyModel?.models ?? []).map((id): ModelInfo => ({
    id,
    displayName: id,
    contextWindow: settings.contextWindow,
    capabilities: { toolUse: true, vision: false, streaming: true },
  }));
  const defaultModel =
    keyModel && hasEndpoint(settings) && keyModel.models.includes(settings.model)
      ? settings.model
      : OFFLINE_MODEL_ID;
  const agent = new RemoteChatAgent({
    origin: location.origin,
    token: server.token,
    userId: demoUserId(),
    defaultModel,
  });
  const models = new Map([...new OfflineModelProvider().models, ...keyModels].map((m) => [m.id, m]));
  return { agent, sessions: agent, runsOn: 'server', hooks: null, defaultModel, models };
}

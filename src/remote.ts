/**
 * `youyou-agent/remote`: the page's side of an agent on a server. `RemoteAgent`,
 * `RemoteSession` and `RemoteTurn` have the surface of the local `Agent`, `Session` and
 * `RunningTurn`; the conversation is the server's, streamed with an id on every frame, so a
 * reconnect loses and repeats nothing.
 * @module
 */
export { RemoteAgent, type RemoteAgentOptions } from './remote/remote-agent.js';
export { RemoteSession, type RemoteSendOptions } from './remote/remote-session.js';
export { RemoteTurn } from './remote/remote-turn.js';
export { AgentError } from './errors.js';
export type { Conversation, ConversationItem } from './conversation/schema.js';
export type {
  AgentEvent,
  InterruptedTurn,
  Message,
  PendingApproval,
  TurnResult,
  UserInput,
} from './types.js';

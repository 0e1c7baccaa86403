/**
 * `youyou-agent/testing`: what tests of an agent need without a network — a scripted fake
 * model provider and builders of its responses.
 * @module
 */
export { ScriptedModelProvider, SCRIPTED_MODEL, reply } from './scripted-model-provider.js';
export type {
  ScriptItem,
  ScriptedResponse,
  ScriptStep,
  ScriptedModelProviderOptions,
  ReplyOptions,
  TextReplyOptions,
  ToolCallsReplyOptions,
  ScriptedToolCall,
} from './scripted-model-provider.js';

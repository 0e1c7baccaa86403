/**
 * `youyou-agent/testing`: what tests of an agent need without a network — a scripted fake
 * model provider, the error it fails loudly with, and builders of its responses.
 * @module
 */
export {
  ScriptedModelProvider,
  SCRIPTED_MODEL,
  UnscriptedModelCallError,
  reply,
} from './scripted-model-provider.js';
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

// The storage contract suites: run them against your own SessionStorage / MemoryStorage.
export { check, type ContractCase } from './contracts/check.js';
export { sessionStorageContract } from './contracts/session-storage.contract.js';
export { memoryStorageContract } from './contracts/memory-storage.contract.js';

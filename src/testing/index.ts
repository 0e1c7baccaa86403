/**
 * `youyou-agent/testing`: what tests of an agent need without a network — a scripted fake
 * model provider, the error it fails loudly with, and builders of its responses.
 * @module
 */
export { ScriptedModelProvider, SCRIPTED_MODEL } from './scripted-model-provider.js';
export { UnscriptedModelCallError } from './unscripted-model-call-error.js';
export { reply } from './reply.js';
export type { ScriptItem, ScriptedResponse, ScriptStep } from './script.js';
export type { ScriptedModelProviderOptions } from './scripted-model-provider.js';
export type { ReplyOptions, TextReplyOptions, ToolCallsReplyOptions, ScriptedToolCall } from './reply.js';

// The storage contract suites: run them against your own SessionStorage / MemoryStorage.
export { check, type ContractCase } from './contracts/check.js';
export { sessionStorageContract } from './contracts/session-storage.contract.js';
export { memoryStorageContract } from './contracts/memory-storage.contract.js';

/**
 * YouYou Agent — a browser-first runtime for LLM agents. This file is the public API, and
 * nothing else: every export is listed by name.
 * @module
 */

// Building and running
export { AgentBuilder } from './builder.js';
export { Agent, type AgentActor } from './agent.js';
export { Session, RunningTurn, type SendMessageOptions, type SessionActorRef } from './session.js';

// Configuration
export {
  AgentConfigSchema,
  ApprovalConfigSchema,
  CompactionConfigSchema,
  EnvironmentContextSchema,
  MemoryConfigSchema,
  RetryConfigSchema,
  type AgentConfig,
  type ApprovalConfig,
  type ApprovalPolicy,
  type ApprovalPolicyAnswer,
  type CompactionConfig,
  type EnvironmentContext,
  type EnvironmentContextSource,
  type InspectionObserver,
  type MemoryConfig,
  type ResolvedAgentConfig,
  type RetryConfig,
} from './config.js';

// Structured output and budgets
export { FINAL_ANSWER_TOOL, type OutputOptions } from './output/final-answer.js';
export { parsePartialJson } from './output/partial-json.js';
export {
  BudgetConfigSchema,
  MessageBudgetSchema,
  type BudgetConfig,
  type MessageBudget,
} from './budget/budget-config.js';

// Time
export { systemClock, type Clock } from './clock.js';

// Errors
export { AgentError, type AgentErrorOptions } from './errors.js';

// Values and their schemas
export {
  AGENT_ERROR_CODES,
  HOOK_EVENTS,
  AgentErrorCodeSchema,
  AgentErrorDataSchema,
  AgentEventPayloadSchema,
  AgentEventSchema,
  ChatEventSchema,
  ChatPurposeSchema,
  ChatRequestSchema,
  ContentBlockSchema,
  ErrorSourceSchema,
  HookEventSchema,
  HookPayloadSchema,
  HookResult,
  HookResultSchema,
  MemorySchema,
  MessageSchema,
  MessageStatusSchema,
  ModelInfoSchema,
  ModelPricingSchema,
  SessionConfigSchema,
  SessionEventPayloadSchema,
  SessionEventSchema,
  SessionPageSchema,
  SessionSummarySchema,
  SkillDefinitionSchema,
  TokenUsageSchema,
  ToolOutputSchema,
  ToolSpecSchema,
  UserInputSchema,
  type AgentErrorCode,
  type AgentErrorData,
  type AgentEvent,
  type AgentEventPayload,
  type ChatEvent,
  type ChatPurpose,
  type ChatRequest,
  type ContentBlock,
  type ErrorSource,
  type HookEvent,
  type HookPayload,
  type JsonSchema,
  type Memory,
  type Message,
  type MessageStatus,
  type ModelInfo,
  type ModelPricing,
  type SessionConfig,
  type SessionEvent,
  type SessionEventPayload,
  type SessionPage,
  type SessionSummary,
  type SkillDefinition,
  type TerminalPayload,
  type TokenUsage,
  type ToolOutput,
  type ToolSpec,
  type TurnResult,
  type InterruptedTurn,
  type PendingApproval,
  type UnfinishedToolCall,
  type UserInput,
} from './types.js';
export { ProviderItemsSchema, type ProviderItems } from './types.js';

// The renderable conversation (`session.conversation`)
export {
  ConversationItemSchema,
  ConversationSchema,
  type Conversation,
  type ConversationItem,
} from './conversation/schema.js';

// Ports
export type { ModelProvider } from './ports/model-provider.js';
export {
  defineTool,
  toolParametersJsonSchema,
  type ApprovalQuery,
  type ToolDefinition,
  type ToolExecuteInput,
  type ToolHandler,
} from './ports/tool-handler.js';
export type {
  HookDataMap,
  HookHandler,
  HookPayloadOf,
  Plugin,
  PluginContext,
  RuntimeWatcher,
  WatchedSession,
} from './ports/plugin.js';
export type { MemoryStorage, SaveEventOptions, SessionDraft, SessionStorage } from './ports/storage.js';
export type { LockLease, LockMode, SessionLock } from './ports/session-lock.js';
export type { ToolSource } from './ports/tool-source.js';

// Tools
export { TRUNCATION_MARKER, MAX_TOOL_OUTPUT_BYTES } from './tools/truncate.js';

// Providers
// (`OpenAIProvider` is in `youyou-agent/openai`, so that only apps that use it bundle `openai`.)
export { ProviderRegistry } from './providers/provider-registry.js';
export type { RegisteredProvider, ResolvedModel } from './providers/provider-directory.js';
export type { OpenAIProviderConfig, ProviderType } from './providers/openai/config.js';
export { costOf } from './providers/cost.js';

// Storage
export {
  InMemorySessionStorage,
  type InMemorySessionStorageOptions,
} from './storage/in-memory-session-storage.js';
export { InMemoryMemoryStorage } from './storage/in-memory-memory-storage.js';
export {
  IndexedDbSessionStorage,
  IndexedDbMemoryStorage,
  type IndexedDbStorageOptions,
  type CorruptRecordInfo,
} from './storage/indexeddb/index.js';

// Across tabs
export {
  WebLocksSessionLock,
  defaultSessionLock,
  type WebLocksSessionLockOptions,
} from './sync/web-locks-session-lock.js';
export {
  SessionChangeFeed,
  type SessionChange,
  type SessionChangeFeedOptions,
} from './sync/session-change-feed.js';

// Machines, for inspection and tests that drive them
export { agentMachine } from '../machines/agent.machine.js';
export { sessionMachine } from '../machines/session.machine.js';
export {
  turnMachine,
  type StepCommand,
  type StepReport,
  type TurnStepName,
  type TurnSteps,
} from '../machines/turn.machine.js';

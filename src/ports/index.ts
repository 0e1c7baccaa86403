export type { ModelProvider } from './model-provider.js';
export type { ToolHandler, ToolExecuteInput, ToolDefinition } from './tool-handler.js';
export { defineTool, toolParametersJsonSchema } from './tool-handler.js';
export type { SessionStorage, MemoryStorage } from './storage.js';
export type { Plugin, PluginContext, HookHandler, HookDataMap, HookPayloadOf } from './plugin.js';

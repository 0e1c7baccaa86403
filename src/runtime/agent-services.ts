/**
 * The agent-wide services every session shares, fixed at `build()`.
 * @module
 */
import type { Clock } from '../clock.js';
import type { ResolvedAgentConfig } from '../config.js';
import type { HookRegistry } from '../hooks/hook-registry.js';
import type { PluginManager } from '../plugins/plugin-manager.js';
import type { SessionLock } from '../ports/session-lock.js';
import type { MemoryStorage, SessionStorage } from '../ports/storage.js';
import type { ProviderDirectory } from '../providers/provider-directory.js';
import type { SkillManager } from '../skills/skill-manager.js';
import type { ToolDispatcher } from '../tools/tool-dispatcher.js';
import type { ToolSources } from '../tools/tool-sources.js';

/** What `build()` hands to the `Agent`. */
export interface AgentServices {
  config: ResolvedAgentConfig;
  /** `config.clock`, or the system clock. */
  clock: Clock;
  providers: ProviderDirectory;
  tools: ToolDispatcher;
  /** Characters of the tool specs' JSON, for token estimates (computed once). */
  toolSpecsChars: number;
  /** Tools that arrive per request (e.g. from MCP servers). */
  toolSources: ToolSources;
  hooks: HookRegistry;
  skills: SkillManager;
  plugins: PluginManager;
  sessionStorage: SessionStorage | null;
  memoryStorage: MemoryStorage | null;
  /** Who may write a session across tabs; `null`: no lock (storage fencing alone, if any). */
  sessionLock: SessionLock | null;
}

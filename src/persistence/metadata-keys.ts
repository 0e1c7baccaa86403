/**
 * The keys of the `metadata` records the runtime stores beside a session's messages. Storages
 * may read them (a summary's `modelId` comes from `session_config`); resume reads all of them.
 * @module
 */

/** The session config with its resolved `modelId`, saved when a session is created. */
export const SESSION_CONFIG_KEY = 'session_config';

/** The full compacted history, saved after every compaction: resume starts from the last one. */
export const CONTEXT_SNAPSHOT_KEY = 'context_snapshot';

/** `{ turnId }` of a turn that ran the memory checkpoint: resume counts the next from there. */
export const MEMORY_CHECKPOINT_KEY = 'memory_checkpoint';

/** `{ turnId, startedAt }`, saved when a turn starts: a start with no end is an interrupted turn. */
export const TURN_STARTED_KEY = 'turn_started';

/** `{ turnId, status, usage, cost? }`, saved when a turn ends (or an interrupted one is discarded). */
export const TURN_ENDED_KEY = 'turn_ended';

/** `{ turnId, callId }`, saved and drained before a mutating tool executes: it may have run. */
export const TOOL_STARTED_KEY = 'tool_started';

/**
 * The keys of the `metadata` records the runtime stores beside a session's messages. Storages
 * may read them (a summary's `modelId` comes from `session_config`); resume reads all of them.
 * @module
 */

/** The session config with its resolved `modelId`, saved when a session is created. */
export const SESSION_CONFIG_KEY = 'session_config';

/**
 * `{ userId }`: who owns the session, saved by a server when it creates it. Storages keep it with
 * the summary (`SessionSummary.owner`), so checking an owner never reads a whole history.
 */
export const SESSION_OWNER_KEY = 'session_owner';

/** The full compacted history, saved after every compaction: resume starts from the last one. */
export const CONTEXT_SNAPSHOT_KEY = 'context_snapshot';

/** `{ turnId }` of a turn that ran the memory checkpoint: resume counts the next from there. */
export const MEMORY_CHECKPOINT_KEY = 'memory_checkpoint';

/** `{ turnId, callId, toolName, requestedAt }`: a call waits for the user (stored before it is announced). */
export const APPROVAL_REQUESTED_KEY = 'approval_requested';

/** `{ turnId, callId, approved, by, reason?, decidedAt }`: how a call's approval was decided. */
export const APPROVAL_DECISION_KEY = 'approval_decision';

/** `{ toolName, approved, reason? }`: the user's answer for every later call of a tool in the session. */
export const APPROVAL_RULE_KEY = 'approval_rule';

/** `{ turnId }`, saved when a turn starts: a start with no end is an interrupted turn. */
export const TURN_STARTED_KEY = 'turn_started';

/** `{ turnId, status, usage, cost? }`, saved when a turn ends (or an interrupted one is discarded). */
export const TURN_ENDED_KEY = 'turn_ended';

/** `{ turnId, callId }`, saved and drained before a mutating tool executes: it may have run. */
export const TOOL_STARTED_KEY = 'tool_started';

/**
 * `{ turnId, callId, output }`: a turn's validated structured answer (the value `turn.result`
 * had), saved when the answer is accepted; a resumed conversation shows it on that turn's
 * `final_answer` item.
 */
export const TURN_OUTPUT_KEY = 'turn_output';

/**
 * `{ turnId, usage, cost? }` after every model response (turn, compaction and memory requests;
 * `turnId` is `null` outside a turn): resume sums them, so session budgets and the
 * conversation's totals go on from where they were.
 */
export const USAGE_KEY = 'usage';

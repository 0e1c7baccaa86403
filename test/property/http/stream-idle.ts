/**
 * How a stalled stream (no bytes after the headers, or no headers) ends in the real-HTTP
 * property.
 *
 * SWITCH: while the agent has no stream idle bound, the server itself closes a stalled
 * connection after {@link STALL_CLOSE_MS}, so a stall ends as a broken connection (retryable).
 * Once `AgentConfig.streamIdleTimeoutMs` exists, set {@link STREAM_IDLE_TIMEOUT_MS} to a short
 * value: the agent is given that option, the server then leaves stalls open, and the agent's
 * own bound must end them (also a retryable failure, so the invariants and the expected ends
 * stay the same).
 */
export const STREAM_IDLE_TIMEOUT_MS: number | null = null;

/** How long the server holds a stalled connection before closing it (when the agent has no bound). */
export const STALL_CLOSE_MS = 5;

/** The agent settings the switch adds. */
export function streamIdleConfig(): Record<string, unknown> {
  return STREAM_IDLE_TIMEOUT_MS === null ? {} : { streamIdleTimeoutMs: STREAM_IDLE_TIMEOUT_MS };
}

/**
 * How a stalled stream (no bytes after the headers, or no headers at all) ends in the real-HTTP
 * property: by the agent's own bound, `streamIdleTimeoutMs` — long here, so a healthy stream
 * never meets it, and made to run out at once when the server stalls (the run's clock jumps
 * that far ahead). The failure is the retryable "no data" `PROVIDER_ERROR`.
 * @module
 */
export const STREAM_IDLE_TIMEOUT_MS = 47_000;

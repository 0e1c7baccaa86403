/**
 * How one session tells the plugins' watchers (`ctx.watch`) what happens: turn starts, every
 * event, and each model request through a provider that passes its stream on. A watcher that
 * throws is ignored: watching never changes what the session does.
 * @module
 */
import { READS_REQUEST_ONLY, type ModelProvider } from '../ports/model-provider.js';
import type { RequestWatch, RuntimeWatcher, WatchedTurn } from '../ports/plugin.js';
import type { AgentEvent, ChatEvent, ChatRequest } from '../types.js';

/** Calls `call`, ignoring what it throws. */
function guarded<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch {
    return undefined;
  }
}

/** Tells each watcher that a turn starts; returns the first `traceparent` one gave, or `null`. */
export function watchTurnStart(watchers: readonly RuntimeWatcher[], turn: WatchedTurn): string | null {
  let traceparent: string | null = null;
  for (const watcher of watchers) {
    const given = guarded(() => watcher.turnStarted?.(turn));
    if (traceparent === null && typeof given === 'string' && given !== '') traceparent = given;
  }
  return traceparent;
}

/** Hands one event to each watcher. */
export function watchEvent(watchers: readonly RuntimeWatcher[], event: AgentEvent): void {
  for (const watcher of watchers) if (watcher.event) guarded(() => watcher.event!(event));
}

/**
 * `provider` with each request shown to the watchers. When none returns a watch, the provider's
 * own stream is returned as it is (no cost per event).
 */
export function watchedProvider(
  provider: ModelProvider,
  watchers: readonly RuntimeWatcher[],
  sessionId: string,
  turnInFlight: () => string | null,
): ModelProvider {
  const watched: ModelProvider & { [READS_REQUEST_ONLY]?: boolean } = {
    id: provider.id,
    models: provider.models,
    chat(request: ChatRequest, signal: AbortSignal) {
      const watches: RequestWatch[] = [];
      const seen = { sessionId, turnId: turnInFlight(), provider, request };
      for (const watcher of watchers) {
        const watch = watcher.request && guarded(() => watcher.request!(seen));
        if (watch) watches.push(watch);
      }
      const stream = provider.chat(request, signal);
      return watches.length === 0 ? stream : passOn(stream, watches);
    },
  };
  const readsOnly = (provider as { [READS_REQUEST_ONLY]?: unknown })[READS_REQUEST_ONLY];
  if (readsOnly === true) watched[READS_REQUEST_ONLY] = true;
  return watched;
}

async function* passOn(stream: AsyncIterable<ChatEvent>, watches: readonly RequestWatch[]) {
  let error: unknown = null;
  try {
    for await (const event of stream) {
      for (const watch of watches) if (watch.event) guarded(() => watch.event!(event));
      yield event;
    }
  } catch (thrown) {
    error = thrown;
    throw thrown;
  } finally {
    for (const watch of watches) if (watch.end) guarded(() => watch.end!(error));
  }
}

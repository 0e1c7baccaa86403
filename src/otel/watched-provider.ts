/**
 * A session's provider with each model request shown to the plugin: the request as it goes, the
 * stream's events as they pass, and its end. The stream itself is passed on unchanged; a request
 * the plugin does not trace is the provider's own stream, untouched.
 * @module
 */
import { READS_REQUEST_ONLY, type ModelProvider } from '../ports/model-provider.js';
import type { ChatEvent, ChatRequest } from '../types.js';

/** What watches one model request: its stream's events, then its end. */
export interface RequestWatch {
  event(event: ChatEvent): void;
  /** The stream ended: `error` is what it threw, `null` when it ended or was stopped. */
  end(error: unknown): void;
}

/** `provider`, with `watch(request)` asked at each request (`null`: not traced). */
export function watchedProvider(
  provider: ModelProvider,
  watch: (request: ChatRequest, provider: ModelProvider) => RequestWatch | null,
): ModelProvider {
  const watched: ModelProvider & { [READS_REQUEST_ONLY]?: true } = {
    id: provider.id,
    models: provider.models,
    chat(request, signal) {
      const stream = provider.chat(request, signal);
      const seen = watch(request, provider);
      return seen === null ? stream : passOn(stream, seen);
    },
  };
  // Reading the request is all the plugin does (its content, when recorded).
  if ((provider as { [READS_REQUEST_ONLY]?: unknown })[READS_REQUEST_ONLY] === true)
    watched[READS_REQUEST_ONLY] = true;
  return watched;
}

async function* passOn(stream: AsyncIterable<ChatEvent>, watch: RequestWatch): AsyncGenerator<ChatEvent> {
  let error: unknown = null;
  try {
    for await (const event of stream) {
      watch.event(event);
      yield event;
    }
  } catch (thrown) {
    error = thrown;
    throw thrown;
  } finally {
    watch.end(error);
  }
}

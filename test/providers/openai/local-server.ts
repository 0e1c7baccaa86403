/**
 * The one import of the local Chat Completions server helper for the stream-replay, end-marker,
 * content-part and secret tests (the helper may move; only this line then changes), and the
 * readers of the recorded streams under test/fixtures.
 */
import { readFileSync } from 'node:fs';

export {
  ChatCompletionsServer,
  collect,
  joined,
  sseEvent,
  startSse,
  streamText,
  writeInPieces,
  type Outcome,
  type Responder,
} from '../../support/chat-completions-server.js';

/** A recorded stream from test/fixtures/peer-streams (see its SOURCES.md). */
export function readPeerStream(name: string): string {
  return readFileSync(new URL(`../../fixtures/peer-streams/${name}`, import.meta.url), 'utf8');
}

/** A stream from test/fixtures/chat-completions-sse (see its SOURCES.md). */
export function readOwnStream(name: string): string {
  return readFileSync(new URL(`../../fixtures/chat-completions-sse/${name}`, import.meta.url), 'utf8');
}

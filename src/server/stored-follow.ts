/**
 * `GET …/events` for a session another instance holds: a stream of its stored state, read
 * again whenever what is stored may have changed — when the agent's `sessionChanges` says so
 * (another instance appended, deleted, took or gave up the session's lease) and, while a turn
 * runs there, every second, for its draft (the partial text rings no bell). A `state` frame
 * goes out each time the state differs from the last one sent. The stream ends when the client
 * goes away, the session is deleted, a read fails, or this instance comes to hold the session:
 * the client then reconnects, and gets the live copy.
 * @module
 */
import type { Agent } from '../agent.js';
import type { SessionState } from '../remote/wire.js';
import { FrameLog } from './frame-log.js';
import { HEARTBEAT_MS, SSE_HEADERS } from './http.js';
import type { SessionHost } from './session-host.js';
import { storedState } from './stored-state.js';

/** How often a running turn's draft is read again (drafts are saved at most this often). */
const DRAFT_READ_MS = 1_000;

/** How often an idle session is read again, for storages whose changes no feed reports. */
const IDLE_READ_MS = 5_000;

/**
 * The follow stream of `sessionId`, which `userId` owns and another instance holds. Rejects as
 * reading the stored state does (`SESSION_NOT_FOUND`, `STORAGE_ERROR`); the agent it reads
 * through is shut down when the stream ends.
 */
export function followStored(
  host: SessionHost,
  userId: string,
  sessionId: string,
  signal: AbortSignal,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    host
      .withAgent(userId, async (agent) => {
        const first = await storedState(agent, sessionId);
        await new Promise<void>((ended) => {
          const isHeld = () => host.held(userId, sessionId) !== null;
          resolve(stream(agent, sessionId, first, { signal, isHeld, ended }));
        });
      })
      .catch(reject);
  });
}

interface StreamOptions {
  signal: AbortSignal;
  /** Whether this instance holds the session now. */
  isHeld: () => boolean;
  ended: () => void;
}

/** The SSE response: the first state, then each changed one, with heartbeats. */
function stream(agent: Agent, sessionId: string, first: SessionState, options: StreamOptions) {
  const log = new FrameLog();
  const { signal } = options;
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      const encoder = new TextEncoder();
      let open = true;
      let last = '';
      let reading = false;
      let again = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const send = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const sendState = (state: SessionState) => {
        const text = JSON.stringify(state);
        if (text === last) return;
        last = text;
        send(log.push('state', state).text);
      };
      const finish = () => {
        if (!open) return;
        cleanup();
        try {
          controller.close();
        } catch {
          // already cancelled by the client
        }
      };
      const schedule = (running: boolean) => {
        clearTimeout(timer);
        timer = setTimeout(() => void read(), running ? DRAFT_READ_MS : IDLE_READ_MS);
        (timer as { unref?: () => void }).unref?.();
      };
      /** Reads the state again (one read at a time; a change meanwhile reads once more). */
      const read = async (): Promise<void> => {
        if (!open) return;
        if (options.isHeld()) return finish();
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          const state = await storedState(agent, sessionId);
          sendState(state);
          schedule(state.conversation.turn !== null);
        } catch {
          return finish();
        } finally {
          reading = false;
        }
        if (again) {
          again = false;
          await read();
        }
      };
      const changes = agent.sessionChanges.subscribe((change) => {
        if (change.sessionId !== sessionId) return;
        if (change.kind === 'deleted') finish();
        else void read();
      });
      const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
      (heartbeat as { unref?: () => void }).unref?.();
      cleanup = () => {
        if (!open) return;
        open = false;
        changes.unsubscribe();
        clearTimeout(timer);
        clearInterval(heartbeat);
        signal.removeEventListener('abort', finish);
        options.ended();
      };
      signal.addEventListener('abort', finish);
      sendState(first);
      schedule(first.conversation.turn !== null);
      if (signal.aborted) finish();
    },
    cancel: () => cleanup(),
  });
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}

/**
 * What the bench process and an instance process (`instance.ts`) say to each other over IPC.
 * @module
 */
import type { PostgresConnection } from './postgres-world.js';

/** How an instance is set up (its one command-line argument, as JSON). */
export interface InstanceConfig {
  modelBaseURL: string;
  /** The models its provider serves; the first is the default. */
  modelIds: string[];
  /** Requests through an `openai` SDK client instead of the provider's own `fetch` client. */
  sdkClient: boolean;
  idleTimeoutMs: number;
  maxOpenSessions: number;
  /** `maxStreamBufferBytes`, when set. */
  maxStreamBufferBytes?: number;
  /** `maxRunningTurns`, when set (an older handler may not know the option). */
  maxRunningTurns?: number;
  /** Sessions in this PostgreSQL database (with a `PostgresSessionLock` named `holderId`); else in memory. */
  postgres?: PostgresConnection & { holderId: string };
}

/** A request to an instance. */
export type InstanceRequest =
  | { type: 'memory' }
  /** Answers a `DriveSummary` whose `probed` is `[its CPU ms over the turns]`. */
  | {
      type: 'local';
      sessions: number;
      turns: number;
      deltas: number;
      modelId: string;
      tag: string;
      /** Subscribe to each session's `conversation` too, as a page rendering it does. */
      watch?: boolean;
    }
  | { type: 'counts' }
  /** `process.cpuUsage()`, user + system, in ms. */
  | { type: 'cpu' }
  /** How many times the process wrote to an HTTP response so far. */
  | { type: 'writes' }
  /** Why the event streams closed so far (`{ overflow: 2, … }`), and `open`: how many are open. */
  | { type: 'streams' }
  /**
   * Starts a CPU profile of this process (`start`), or stops it and writes it to
   * `<dir>/<name>.cpuprofile` (`stop`): one round's profile, without the start-up.
   */
  | { type: 'profile'; start: true }
  | { type: 'profile'; start: false; dir: string; name: string }
  | { type: 'stop' };

/** The heap and RSS of an instance after a full GC, in bytes. */
export interface MemoryReading {
  heapUsed: number;
  rss: number;
}

/**
 * The demo's agent server, as the dev server runs it: the database, the agent factory and
 * `createAgentHandler` at `/agent`, with the demo's structured answer (`trip_plan`) as a named
 * output. The Vite plugin (`agent-server.ts`) loads this module through the dev server's own
 * module loader, so the library and the demo's parts resolve as the page's do.

 * @module
 */
import { createAgentHandler } from 'youyou-agent/server';
import { TripPlanSchema } from '../src/parts/trip-plan.js';
import { openDemoDatabase, type DatabaseChoice } from './agent-database.js';
import { serverAgentFactory, type ServerKeyModel } from './server-agent.js';

/** Where the agent server is mounted. */
export const AGENT_BASE_PATH = '/agent';

/** What the agent server is started with. */
export interface AgentHostOptions extends DatabaseChoice {
  /** Who a request is from (`null`: 401). */
  authorize: (request: Request) => { userId: string } | null;
  /** The server's own model, when `npm start` has a key; `null` for the offline model only. */
  model: ServerKeyModel | null;
}

/** A running agent server. */
export interface AgentHost {
  readonly handler: (request: Request) => Promise<Response>;
  /** Where the sessions are, for the log. */
  readonly where: string;
  close(): Promise<void>;
}

/**
 * Opens the database and builds the handler.
 * @example
 * const host = await startAgentHost({ authorize, model: null, dataDir: '.demo-data/pglite' });
 */
export async function startAgentHost(options: AgentHostOptions): Promise<AgentHost> {
  const database = await openDemoDatabase(options);
  const handler = createAgentHandler({
    agent: serverAgentFactory({ sql: database.sql, model: options.model }),
    authorize: options.authorize,
    outputs: { trip_plan: TripPlanSchema },
    basePath: AGENT_BASE_PATH,
  });
  return { handler, where: database.where, close: () => database.close() };
}

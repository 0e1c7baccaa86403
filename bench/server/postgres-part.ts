/**
 * Part 5, two instances on one real PostgreSQL server. Both instance processes keep their
 * sessions in `PostgresSessionStorage` with a `PostgresSessionLock` on the same database, and the
 * requests for each session alternate between them: session i is created on instance i mod 2,
 * and each of its turns goes to the other instance than the one before, so every turn takes the
 * session over. Once each turn has streamed its first delta, the other instance gets a read of
 * the session (which must not take it over) and a second turn for it (which must be refused with
 * `TURN_BUSY`: a turn runs). Then every stored history is read back and checked
 * (`history-check.ts`).
 * @module
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { pgClient, PostgresSessionStorage } from '../../src/postgres.js';
import type { LockCounts } from './agents.js';
import { boundedResult } from './drive.js';
import { checkHistory, type HistoryFindings } from './history-check.js';
import type { InstanceProcess } from './instance-process.js';
import type { InstanceConfig } from './instance-protocol.js';
import { expectedAnswer, modelId } from './model-server.js';
import { startPostgres } from './postgres-server.js';
import type { PostgresConnection } from './postgres-world.js';
import { remoteAgent, userOf } from './remote-sessions.js';
import { round, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

/** What the clients counted. */
interface Tally {
  requests: number;
  turns: number;
  errors: number;
  samples: string[];
  reads: number;
  readsFailed: number;
  /** Second turns refused with 409 while the first one streamed. */
  busy: number;
  /** Second turns the other instance accepted (200) while the first one streamed. */
  accepted: number;
  /** The statuses of second turns answered otherwise. */
  other: number[];
}

/** One session as the clients left it. */
interface Driven {
  id: string;
  userId: string;
  /** The tags of its turns that completed with their answer. */
  completed: string[];
}

/** Runs the part: a PostgreSQL server, two instances on it, then the checks. */
export async function postgres(
  settings: ServerSettings,
  start: (config: Partial<InstanceConfig>) => Promise<InstanceProcess>,
): Promise<{ rows: Row[]; notes: string[] }> {
  const database = await startPostgres();
  const instances: InstanceProcess[] = [];
  try {
    for (const holderId of ['A', 'B'])
      instances.push(await start({ postgres: { ...database.connection, holderId } }));
    const tally: Tally = {
      requests: 0,
      turns: 0,
      errors: 0,
      samples: [],
      reads: 0,
      readsFailed: 0,
      busy: 0,
      accepted: 0,
      other: [],
    };
    const started = performance.now();
    const sessions = await Promise.all(
      Array.from({ length: settings.pgSessions }, (_, i) => runSession(i, instances, settings, tally)),
    );
    const wallMs = performance.now() - started;
    const counts = await Promise.all(instances.map((i) => i.request<LockCounts>({ type: 'counts' })));
    const findings = await checkAll(database.connection, sessions, settings.deltas);
    return report(settings, tally, counts, findings, wallMs);
  } finally {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database.stop();
  }
}

/** One session's life across both instances. */
async function runSession(
  i: number,
  instances: InstanceProcess[],
  settings: ServerSettings,
  tally: Tally,
): Promise<Driven> {
  const userId = userOf(i);
  const model = modelId(settings.deltas, settings.paceMs);
  const fail = (what: string) => {
    tally.errors++;
    if (tally.samples.length < 2) tally.samples.push(what.slice(0, 160));
  };
  tally.requests++;
  const { id } = await remoteAgent(instances[i % 2]!.url, userId).newSession({ modelId: model });
  const completed: string[] = [];
  for (let t = 0; t < settings.pgTurns; t++) {
    const here = instances[(i + t + 1) % 2]!;
    const there = instances[(i + t) % 2]!;
    const tag = `pg-s${i}-t${t}`;
    tally.turns++;
    tally.requests += 2;
    try {
      const session = await remoteAgent(here.url, userId).resumeSession(id);
      const turn = await session.sendMessage(tag);
      let text = '';
      let contended: Promise<void> | null = null;
      turn.events.subscribe(({ payload }) => {
        if (payload.type !== 'text_delta') return;
        text += payload.text;
        contended ??= contend(there, userId, id, `${tag}-second`, tally);
      });
      const result = await boundedResult(turn.result);
      await contended;
      if (result.status !== 'completed') fail(`${tag}: ${result.status} ${result.error?.message ?? ''}`);
      else if (text !== expectedAnswer(settings.deltas, tag))
        fail(
          `${tag}: wrong answer ${text.length} vs ${expectedAnswer(settings.deltas, tag).length}: ${text.slice(0, 30)}…${text.slice(-25)}`,
        );
      else completed.push(tag);
    } catch (error) {
      fail(`${tag}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { id, userId, completed };
}

/** While a turn streams on one instance: a read and a second turn on the other. */
async function contend(
  there: InstanceProcess,
  userId: string,
  sessionId: string,
  input: string,
  tally: Tally,
): Promise<void> {
  const headers = { authorization: `Bearer ${userId}`, 'content-type': 'application/json' };
  const base = `${there.url}/sessions/${encodeURIComponent(sessionId)}`;
  tally.requests += 2;
  const [read, second] = await Promise.all([
    fetch(base, { headers }),
    fetch(`${base}/turns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ input }),
      signal: AbortSignal.timeout(60_000),
    }),
  ]);
  tally.reads++;
  if (read.status !== 200) tally.readsFailed++;
  await read.body?.cancel();
  if (second.status === 409) tally.busy++;
  else if (second.status === 200) tally.accepted++;
  else tally.other.push(second.status);
  // Closing the answer is not a cancel: an accepted second turn would go on over there and make
  // the next turn busy. Its answer is read to its end instead.
  if (second.status === 200) await second.text().catch(() => {});
  else await second.body?.cancel().catch(() => {});
}

/** Reads every session's history back from the database and checks it. */
async function checkAll(
  connection: PostgresConnection,
  sessions: Driven[],
  deltas: number,
): Promise<HistoryFindings[]> {
  const pool = new pg.Pool({ ...connection, max: 2 });
  const sql = pgClient(pool);
  try {
    return await Promise.all(
      sessions.map(async ({ id, userId, completed }) => {
        const storage = new PostgresSessionStorage({ sql, namespace: userId });
        return checkHistory((await storage.loadSession(id)) ?? [], completed, deltas);
      }),
    );
  } finally {
    await sql.close?.();
    await pool.end();
  }
}

function report(
  settings: ServerSettings,
  tally: Tally,
  counts: LockCounts[],
  findings: HistoryFindings[],
  wallMs: number,
): { rows: Row[]; notes: string[] } {
  const sum = (pick: (f: HistoryFindings) => number) => findings.reduce((total, f) => total + pick(f), 0);
  const steals = counts.reduce((total, c) => total + c.steals, 0);
  const lost = counts.reduce((total, c) => total + c.lost, 0);
  const part = '5 two instances, PostgreSQL';
  const perTurn = settings.pgSessions * settings.pgTurns;
  const seconds = round(wallMs / 1000, 1);
  const rows = [
    row(part, 'sessions', settings.pgSessions, 'sessions', `${settings.pgTurns} turns each, alternating A/B`),
    row(part, 'requests', tally.requests, 'requests', 'creates, reads, turns, second turns'),
    row(
      part,
      'turns',
      tally.turns,
      'turns',
      `${round((tally.turns / wallMs) * 1000, 1)} turns/s over ${seconds} s`,
    ),
    row(part, 'turns that failed', tally.errors, 'turns', tally.samples.join(' | ') || 'none'),
    row(
      part,
      'take-overs',
      steals,
      'steals',
      `A ${counts[0]!.steals}, B ${counts[1]!.steals} (turns: ${perTurn}); leases lost ${lost}`,
    ),
    row(part, 'second turn while one streams: 409', tally.busy, 'requests', 'TURN_BUSY, as it should'),
    row(
      part,
      'second turn while one streams: 200',
      tally.accepted,
      'requests',
      `accepted and took the session over (the rule: 409); other answers: ${tally.other.join(', ') || 'none'}`,
    ),
    row(part, 'reads on the other instance', tally.reads, 'requests', `${tally.readsFailed} not 200`),
    row(
      part,
      'stored events checked',
      sum((f) => f.events),
      'events',
      `${findings.length} histories`,
    ),
    row(
      part,
      'interleaved events',
      sum((f) => f.interleaved),
      'events',
      'another turn inside a turn',
    ),
    row(
      part,
      'duplicated events',
      sum((f) => f.duplicated),
      'events',
      'the same event, message or marker twice',
    ),
    row(
      part,
      'completed turns missing from storage',
      sum((f) => f.missing),
      'turns',
      '',
    ),
    row(
      part,
      'turns cut off (started, never ended)',
      sum((f) => f.unended),
      'turns',
      'by a take-over',
    ),
  ];
  const notes = findings
    .flatMap((f) => f.samples)
    .slice(0, 4)
    .map((sample) => `postgres check: ${sample}`);
  return { rows, notes };
}

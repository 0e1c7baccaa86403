/**
 * Part 4, load: `sessions` remote sessions on one instance, all at once, each running
 * `loadTurns` turns one after another against the model server, whose answers are paced like a
 * real model's (`pace` ms between deltas), so the sessions really stream at the same time. Every
 * turn must complete with its own answer; anything else is counted as an error. The same load
 * run in-process inside the instance process is the reference.
 * @module
 */
import { quantile } from '../peer/stats.js';
import { driveSessions, type DriveSummary } from './drive.js';
import type { InstanceProcess } from './instance-process.js';
import { modelId } from './model-server.js';
import { openRemote } from './remote-sessions.js';
import { percentiles, round, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

/** Runs the part on `instance` (in memory) and returns its rows. */
export async function load(instance: InstanceProcess, settings: ServerSettings): Promise<Row[]> {
  const model = modelId(settings.deltas, settings.paceMs);
  const shape = { sessions: settings.sessions, turns: settings.loadTurns, deltas: settings.deltas };
  const remote = await driveSessions(openRemote(instance.url, model), { ...shape, tag: 'load-remote' });
  const local = await instance.request<DriveSummary>({
    type: 'local',
    ...shape,
    modelId: model,
    tag: 'load-local',
  });
  const part = `4 load, ${settings.sessions} sessions`;
  const perSecond = (s: DriveSummary) => round((s.turns / s.wallMs) * 1000, 1);
  const answerMs = settings.deltas * settings.paceMs;
  return [
    row(
      part,
      'remote turns',
      remote.turns,
      'turns',
      `${settings.loadTurns} per session, answers of ≈ ${answerMs} ms`,
    ),
    row(part, 'remote errors', remote.errors, 'turns', remote.samples.slice(0, 2).join(' | ') || 'none'),
    row(part, 'remote wall time', round(remote.wallMs / 1000, 2), 's', `first turn sent → last result`),
    row(part, 'remote turns/s', perSecond(remote), 'turns/s', `turn time ${percentiles(remote.turnMs, 1)}`),
    row(
      part,
      'in-process turns/s (same load)',
      perSecond(local),
      'turns/s',
      `${local.turns} turns, ${local.errors} errors; turn time p50 ${round(quantile(local.turnMs, 0.5), 1)} ms`,
    ),
  ];
}

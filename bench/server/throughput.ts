/**
 * Part 1, turns per second on one instance: the instance process serves `RemoteAgent` clients of
 * this process over HTTP; the same turns run by in-process agents inside the instance process
 * (same factory, same model server, no HTTP) give the ratio. The model answers at once
 * (`p0`), so the figure is what a turn costs, not how long a model takes. One session, then
 * `clients` sessions at once; the two sides alternate round by round, after one untimed round
 * each. CPU time per turn, which a busy machine disturbs less than wall time, is read around each
 * side: the instance process's own, and this process's (the clients and the model server).
 * @module
 */
import { cpuUsage } from 'node:process';
import { median, pairedRatios } from '../peer/stats.js';
import { driveSessions, type DriveSummary } from './drive.js';
import type { InstanceProcess } from './instance-process.js';
import { modelId } from './model-server.js';
import { openRemote } from './remote-sessions.js';
import { quartiles, round, row, type Row } from './report.js';
import type { ServerSettings } from './settings.js';

const perSecond = (summary: DriveSummary) => (summary.turns / summary.wallMs) * 1000;

/** This process's CPU time so far, in ms. */
const ownCpu = () => {
  const { user, system } = cpuUsage();
  return (user + system) / 1000;
};

/** Runs the part on `instance` (in memory) and returns its rows. */
export async function throughput(instance: InstanceProcess, settings: ServerSettings): Promise<Row[]> {
  const model = modelId(settings.deltas, 0);
  const rows: Row[] = [];
  let errors = 0;
  const samples: string[] = [];
  for (const clients of [...new Set([1, settings.clients])]) {
    const shape = { sessions: clients, turns: settings.turns, deltas: settings.deltas };
    const runs: { remote: DriveSummary; local: DriveSummary }[] = [];
    for (let round = 0; round <= settings.runs; round++) {
      const tag = `tp-c${clients}-r${round}`;
      // Remote: [instance CPU, this process's CPU]; in-process: [instance CPU] (read inside it).
      const probe = async () => [await instance.request<number>({ type: 'cpu' }), ownCpu()];
      const remote = () =>
        driveSessions(openRemote(instance.url, model), { ...shape, tag: `${tag}-remote`, probe });
      const local = async () => {
        const before = ownCpu();
        const summary = await instance.request<DriveSummary>({
          type: 'local',
          ...shape,
          modelId: model,
          tag: `${tag}-local`,
        });
        // Meanwhile this process only serves the model.
        return { ...summary, probed: [...summary.probed, ownCpu() - before] };
      };
      const pair =
        round % 2 === 0
          ? { remote: await remote(), local: await local() }
          : { local: await local(), remote: await remote() };
      for (const summary of [pair.remote, pair.local]) {
        errors += summary.errors;
        samples.push(...summary.samples);
      }
      if (round > 0) runs.push(pair); // round 0 warms up the JIT and the connection pools, on both sides
    }
    const remote = runs.map((r) => perSecond(r.remote));
    const local = runs.map((r) => perSecond(r.local));
    const perTurn = (s: DriveSummary, i: number) => s.probed[i]! / s.turns;
    const serverCpu = runs.map((r) => perTurn(r.remote, 0));
    const localCpu = runs.map((r) => perTurn(r.local, 0));
    // This process serves the model to both sides: what the remote side spends beyond that is the
    // clients'. (The in-process side's reading spans the whole request, but outside its turns no
    // model request is made.)
    const clientCpu = runs.map((r) => perTurn(r.remote, 1) - perTurn(r.local, 1));
    const label = clients === 1 ? '1 session' : `${clients} sessions at once`;
    const part = '1 throughput';
    rows.push(
      row(part, `remote turns/s, ${label}`, round(median(remote), 1), 'turns/s', quartiles(remote, 1)),
      row(part, `in-process turns/s, ${label}`, round(median(local), 1), 'turns/s', quartiles(local, 1)),
      row(
        part,
        `remote / in-process turns/s, ${label}`,
        round(median(pairedRatios(remote, local))),
        'ratio',
        quartiles(pairedRatios(remote, local)),
      ),
      row(
        part,
        `server CPU per remote turn, ${label}`,
        round(median(serverCpu)),
        'ms',
        `in-process ${round(median(localCpu))} ms/turn (ratio ${round(median(pairedRatios(serverCpu, localCpu)))}); clients ${round(median(clientCpu))} ms/turn`,
      ),
    );
  }
  rows.push(
    row(
      '1 throughput',
      'turns that failed',
      errors,
      'turns',
      samples.length > 0
        ? samples.slice(0, 2).join(' | ')
        : `${settings.runs} rounds of ${settings.turns} turns per session, ${settings.deltas} deltas each`,
    ),
  );
  return rows;
}

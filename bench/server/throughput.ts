/**
 * Part 1, turns per second on one instance: the instance process serves `RemoteAgent` clients of
 * this process over HTTP; the same turns run by in-process agents inside the instance process
 * (same factory, same model server, no HTTP) give the ratio, once without and once with each
 * session's `conversation` watched (the server builds it for its clients, a page in-process
 * rendering it would too). The model answers at once
 * (`p0`), so the figure is what a turn costs, not how long a model takes. One session, then
 * `clients` sessions at once; the sides take turns in an order that rotates round by round,
 * after one untimed round each. CPU time per turn, which a busy machine disturbs less than wall time, is read around each
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

/** The sides of a round, in the order of the table. */
const SIDES = ['remote', 'in-process', 'in-process, conversation watched'] as const;

/** Runs the part on `instance` (in memory) and returns its rows. */
export async function throughput(instance: InstanceProcess, settings: ServerSettings): Promise<Row[]> {
  const model = modelId(settings.deltas, 0);
  const rows: Row[] = [];
  let errors = 0;
  const samples: string[] = [];
  for (const clients of [...new Set([1, settings.clients])]) {
    const shape = { sessions: clients, turns: settings.turns, deltas: settings.deltas };
    // Each round: one summary per side, in SIDES order.
    const runs: DriveSummary[][] = [];
    for (let round = 0; round <= settings.runs; round++) {
      const tag = `tp-c${clients}-r${round}`;
      // Remote: [instance CPU, this process's CPU]; in-process: [instance CPU] (read inside it).
      const probe = async () => [await instance.request<number>({ type: 'cpu' }), ownCpu()];
      const local = async (watch: boolean) => {
        const before = ownCpu();
        const summary = await instance.request<DriveSummary>({
          type: 'local',
          ...shape,
          modelId: model,
          tag: `${tag}-local${watch ? '-watched' : ''}`,
          watch,
        });
        // Meanwhile this process only serves the model.
        return { ...summary, probed: [...summary.probed, ownCpu() - before] };
      };
      const sides = [
        () => driveSessions(openRemote(instance.url, model), { ...shape, tag: `${tag}-remote`, probe }),
        () => local(false),
        () => local(true),
      ];
      const results: DriveSummary[] = [];
      for (let k = 0; k < sides.length; k++) {
        const side = (round + k) % sides.length;
        results[side] = await sides[side]!();
      }
      for (const summary of results) {
        errors += summary.errors;
        samples.push(...summary.samples);
      }
      if (round > 0) runs.push(results); // round 0 warms up the JIT and the connection pools, on every side
    }
    const rate = (side: number) => runs.map((r) => perSecond(r[side]!));
    const cpu = (side: number, probe: number) => runs.map((r) => r[side]!.probed[probe]! / r[side]!.turns);
    const label = clients === 1 ? '1 session' : `${clients} sessions at once`;
    const part = '1 throughput';
    for (const [side, name] of SIDES.entries()) {
      rows.push(
        row(
          part,
          `${name} turns/s, ${label}`,
          round(median(rate(side)), 1),
          'turns/s',
          quartiles(rate(side), 1),
        ),
      );
    }
    const ratio = (side: number) => pairedRatios(rate(0), rate(side));
    rows.push(
      row(
        part,
        `remote / in-process turns/s, ${label}`,
        round(median(ratio(1))),
        'ratio',
        quartiles(ratio(1)),
      ),
      row(
        part,
        `remote / in-process watched turns/s, ${label}`,
        round(median(ratio(2))),
        'ratio',
        quartiles(ratio(2)),
      ),
    );
    // This process serves the model to every side: what the remote side spends beyond that is the
    // clients'. (The in-process side's reading spans the whole request, but outside its turns no
    // model request is made.)
    const clientCpu = runs.map((r) => r[0]!.probed[1]! / r[0]!.turns - r[1]!.probed[1]! / r[1]!.turns);
    rows.push(
      row(
        part,
        `server CPU per remote turn, ${label}`,
        round(median(cpu(0, 0))),
        'ms',
        `in-process ${round(median(cpu(1, 0)))}, watched ${round(median(cpu(2, 0)))} ms/turn; clients ${round(median(clientCpu))} ms/turn`,
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

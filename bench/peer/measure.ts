/**
 * The peer bench's rounds. Each round runs every selected scenario once per side, each in a fresh
 * process, one process at a time; which side goes first alternates from round to round, so a
 * drift of the machine's speed does not favour one side. The two processes of a round form a pair.
 * @module
 */
import type { ChildReport } from './processes/turns.js';
import type { PeerSettings } from './settings.js';
import { runProcess } from './spawn.js';
import { PACKAGE_DIR } from './build.js';
import { pathToFileURL } from 'node:url';

/** The one-shot scenarios and their sizes. */
export const ONE_SHOT = [
  { part: 'text', label: 'TEXT 5000', scenario: 'text-5000' },
  { part: 'tools', label: 'TOOLS 25', scenario: 'tools-25' },
  { part: 'par', label: 'PAR 16', scenario: 'par-16' },
] as const;

/** A one-shot scenario's part name. */
export type OneShotPart = (typeof ONE_SHOT)[number]['part'];

/** The two sides' processes of one round; `conversation` is the library with `session.conversation` watched. */
export interface Pair<T> {
  round: number;
  first: 'raw' | 'youyou';
  raw: T;
  youyou: T;
  conversation?: T;
}

/** What an import-time process prints. */
export interface ImportTiming {
  wallMs: number;
  cpuMs: number;
  resolved: string;
}

const BUILT_PACKAGE = pathToFileURL(PACKAGE_DIR).href;

/** Throws unless the library process imported the freshly built copy (not, say, a stale `dist/`). */
function checkBuiltCopy(resolved: string | undefined): void {
  if (!resolved?.startsWith(BUILT_PACKAGE)) {
    throw new Error(`youyou-agent resolved to ${resolved}, not to the built copy in ${BUILT_PACKAGE}`);
  }
}

/** Everything the rounds measured. */
export interface Measurements {
  oneShot: Partial<Record<OneShotPart, Pair<ChildReport>[]>>;
  long: Pair<ChildReport>[];
  imports: Pair<ImportTiming>[];
  /** Whether the built library has `session.conversation` (`undefined`: TEXT was not run). */
  hasConversation: boolean | undefined;
}

/** Runs the rounds against the model server at `baseURL`, reporting progress on stderr. */
export async function measure(baseURL: string, settings: PeerSettings): Promise<Measurements> {
  const result: Measurements = { oneShot: {}, long: [], imports: [], hasConversation: undefined };
  const selected = new Set(settings.only);
  const started = performance.now();
  const progress = (text: string) =>
    process.stderr.write(`  peer: ${text} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  const turns = async (side: 'raw' | 'youyou', scenario: string, ...extra: string[]) => {
    const args = ['--side', side, '--scenario', scenario, '--base-url', baseURL, ...extra];
    const report = await runProcess<ChildReport>('turns', args);
    if (side === 'youyou') checkBuiltCopy(report.resolvedPackage);
    return report;
  };
  const importTime = async (specifier: string) => {
    const timing = await runProcess<ImportTiming>('import-time', [specifier]);
    if (specifier === 'youyou-agent') checkBuiltCopy(timing.resolved);
    return timing;
  };

  for (let round = 1; round <= settings.runs; round++) {
    const rawFirst = round % 2 === 1;
    for (const { part, scenario } of ONE_SHOT) {
      if (!selected.has(part)) continue;
      const pair = await inOrder(
        round,
        rawFirst,
        () => turns('raw', scenario),
        () => turns('youyou', scenario),
      );
      if (part === 'text') {
        result.hasConversation = pair.youyou.hasConversation === true;
        if (result.hasConversation) pair.conversation = await turns('youyou', scenario, '--conversation');
      }
      (result.oneShot[part] ??= []).push(pair);
    }
    if (selected.has('import')) {
      result.imports.push(
        await inOrder(
          round,
          rawFirst,
          () => importTime('openai'),
          () => importTime('youyou-agent'),
        ),
      );
    }
    progress(`round ${round}/${settings.runs}`);
  }
  if (selected.has('long')) {
    const scenario = `long-${settings.longTurns}`;
    const warmup = ['--warmup', String(settings.longWarmup)];
    for (let round = 1; round <= settings.longRuns; round++) {
      result.long.push(
        await inOrder(
          round,
          round % 2 === 1,
          () => turns('raw', scenario, ...warmup),
          () => turns('youyou', scenario, ...warmup),
        ),
      );
      progress(`LONG ${settings.longTurns}, round ${round}/${settings.longRuns}`);
    }
  }
  return result;
}

/** Runs the two sides one after the other, raw first or library first. */
async function inOrder<T>(
  round: number,
  rawFirst: boolean,
  raw: () => Promise<T>,
  youyou: () => Promise<T>,
): Promise<Pair<T>> {
  if (rawFirst) {
    const rawResult = await raw();
    return { round, first: 'raw', raw: rawResult, youyou: await youyou() };
  }
  const youyouResult = await youyou();
  return { round, first: 'youyou', raw: await raw(), youyou: youyouResult };
}

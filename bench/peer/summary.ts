/**
 * From the peer bench's measurements to its figures: CPU ratios per scenario (median of the
 * paired per-round ratios, with quartiles), the extra CPU of watching `session.conversation`,
 * import times, and how flat the per-turn cost of a long session stays.
 * @module
 */
import type { BenchResult } from '../types.js';
import { ONE_SHOT, type Measurements, type Pair } from './measure.js';
import type { ChildReport, RunTiming } from './processes/turns.js';
import { median, pairedRatios, spread, type Spread } from './stats.js';

/** Which run of a process is the cold one (the first) and which the warm one (the third). */
const COLD = 0;
const WARM = 2;

/** The goals, as ratios to the raw SDK (import: ms). */
const GOALS = { text: 1.1, tools: 1.25, par: 1.25, long: 1.2, importMs: 100 } as const;

/** One run (cold or warm) of a one-shot scenario, both sides. */
export interface RunFigures {
  /** youyou / raw, CPU of the whole one-shot run (setup + turn + teardown). */
  ratio: Spread;
  /** youyou / raw, CPU of the turn alone (`sendMessage` to `turn.result`; raw: the loop). */
  turnRatio: Spread;
  rawMs: number;
  youyouMs: number;
}

/** The extra CPU of watching `session.conversation` during the turn, against the plain library run. */
export interface ConversationFigures {
  extraMs: Spread;
  ratio: Spread;
}

/** Per-turn CPU at turns 1–10 and at the last 11 turns of the long session, one side. */
export interface LongFigures {
  /** late / early, per process. */
  flatness: Spread;
  earlyMs: number;
  lateMs: number;
}

/** The peer bench's figures (written to `bench/results/latest.json` with the measurements). */
export interface Summary {
  oneShot: {
    label: string;
    goal: number;
    cold: RunFigures;
    warm: RunFigures;
    /** `null`: the library has no `session.conversation` (n/a); absent: not measured. */
    conversation?: { cold: ConversationFigures; warm: ConversationFigures } | null;
  }[];
  imports?: { rawWallMs: Spread; youyouWallMs: Spread; rawCpuMs: number; youyouCpuMs: number };
  long?: { turns: number; raw: LongFigures; youyou: LongFigures; lateRatio: Spread };
}

const cpu = (run: RunTiming | undefined): number => {
  if (!run) throw new Error('a process reported fewer runs than the bench reads');
  return run.setup.cpuMs + run.turn.cpuMs + run.teardown.cpuMs;
};
const runOf = (report: ChildReport, index: number): RunTiming | undefined => report.runs?.[index];

function runFigures(pairs: Pair<ChildReport>[], index: number): RunFigures {
  const raw = pairs.map((pair) => cpu(runOf(pair.raw, index)));
  const youyou = pairs.map((pair) => cpu(runOf(pair.youyou, index)));
  const rawTurn = pairs.map((pair) => runOf(pair.raw, index)!.turn.cpuMs);
  const youyouTurn = pairs.map((pair) => runOf(pair.youyou, index)!.turn.cpuMs);
  return {
    ratio: spread(pairedRatios(youyou, raw)),
    turnRatio: spread(pairedRatios(youyouTurn, rawTurn)),
    rawMs: median(raw),
    youyouMs: median(youyou),
  };
}

function conversationFigures(pairs: Pair<ChildReport>[], index: number): ConversationFigures {
  const plain = pairs.map((pair) => cpu(runOf(pair.youyou, index)));
  const watched = pairs.map((pair) => cpu(runOf(pair.conversation!, index)));
  return {
    extraMs: spread(watched.map((value, i) => value - plain[i]!)),
    ratio: spread(pairedRatios(watched, plain)),
  };
}

function longFigures(reports: ChildReport[]): LongFigures {
  const perProcess = reports.map((report) => {
    const turns = (report.turns ?? []).map((turn) => turn.cpuMs);
    return { early: median(turns.slice(0, 10)), late: median(turns.slice(-11)) };
  });
  return {
    flatness: spread(perProcess.map(({ early, late }) => late / early)),
    earlyMs: median(perProcess.map(({ early }) => early)),
    lateMs: median(perProcess.map(({ late }) => late)),
  };
}

/** Computes the figures of whatever was measured. */
export function summarise(measurements: Measurements, longTurns: number): Summary {
  const summary: Summary = { oneShot: [] };
  for (const { part, label } of ONE_SHOT) {
    const pairs = measurements.oneShot[part];
    if (!pairs) continue;
    const entry: Summary['oneShot'][number] = {
      label,
      goal: GOALS[part],
      cold: runFigures(pairs, COLD),
      warm: runFigures(pairs, WARM),
    };
    if (part === 'text') {
      entry.conversation = measurements.hasConversation
        ? { cold: conversationFigures(pairs, COLD), warm: conversationFigures(pairs, WARM) }
        : null;
    }
    summary.oneShot.push(entry);
  }
  if (measurements.imports.length > 0) {
    const { imports } = measurements;
    summary.imports = {
      rawWallMs: spread(imports.map((pair) => pair.raw.wallMs)),
      youyouWallMs: spread(imports.map((pair) => pair.youyou.wallMs)),
      rawCpuMs: median(imports.map((pair) => pair.raw.cpuMs)),
      youyouCpuMs: median(imports.map((pair) => pair.youyou.cpuMs)),
    };
  }
  if (measurements.long.length > 0) {
    const raw = longFigures(measurements.long.map((pair) => pair.raw));
    const youyou = longFigures(measurements.long.map((pair) => pair.youyou));
    const lateOf = (report: ChildReport) => median((report.turns ?? []).slice(-11).map((turn) => turn.cpuMs));
    summary.long = {
      turns: longTurns,
      raw,
      youyou,
      lateRatio: spread(
        pairedRatios(
          measurements.long.map((pair) => lateOf(pair.youyou)),
          measurements.long.map((pair) => lateOf(pair.raw)),
        ),
      ),
    };
  }
  return summary;
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const ratioText = ({ median, q1, q3 }: Spread, digits = 2) =>
  `${fixed(median, digits)} [${fixed(q1, digits)}–${fixed(q3, digits)}]`;
const ms = (value: number) => fixed(value, 1);
const signedMs = ({ median, q1, q3 }: Spread) => {
  const sign = (value: number) => `${value >= 0 ? '+' : '−'}${ms(Math.abs(value))}`;
  return `${sign(median)} ms [${sign(q1)} to ${sign(q3)}]`;
};

/** The settings and conditions the table's title and notes mention. */
export interface TableContext {
  runs: number;
  longRuns: number;
  longWarmup: number;
  /** 1-minute load average before and after, and the number of CPUs. */
  load: { before: number; after: number; cpus: number };
}

/** The figures as one table for `bench/run.js`. */
export function table(summary: Summary, context: TableContext): BenchResult {
  const rows: BenchResult['rows'] = [];
  const row = (cells: {
    scenario: string;
    measure: string;
    value: string;
    turn?: string;
    goal?: string;
    raw?: string;
    youyou?: string;
  }) =>
    rows.push({
      scenario: cells.scenario,
      measure: cells.measure,
      'median [q1–q3]': cells.value,
      'turn only': cells.turn ?? '',
      goal: cells.goal ?? '',
      raw: cells.raw ?? '',
      youyou: cells.youyou ?? '',
    });
  for (const scenario of summary.oneShot) {
    for (const [when, figures] of [
      ['cold', scenario.cold],
      ['warm', scenario.warm],
    ] as const) {
      row({
        scenario: scenario.label,
        measure: `${when} CPU, youyou / raw`,
        value: ratioText(figures.ratio),
        turn: ratioText(figures.turnRatio),
        goal: `≤ ${fixed(scenario.goal, 2)}`,
        raw: `${ms(figures.rawMs)} ms`,
        youyou: `${ms(figures.youyouMs)} ms`,
      });
    }
    if (scenario.conversation === undefined) continue;
    for (const when of ['cold', 'warm'] as const) {
      const figures = scenario.conversation?.[when];
      row({
        scenario: `${scenario.label} + conversation`,
        measure: `${when}, extra CPU`,
        value: figures ? signedMs(figures.extraMs) : 'n/a',
        youyou: figures ? `× ${ratioText(figures.ratio)}` : 'n/a',
      });
    }
  }
  if (summary.imports) {
    const { imports } = summary;
    row({
      scenario: 'import',
      measure: 'wall ms, fresh process',
      value: ratioText(imports.youyouWallMs, 1),
      goal: `≤ ${GOALS.importMs} ms`,
      raw: `${ms(imports.rawWallMs.median)} ms (CPU ${ms(imports.rawCpuMs)})`,
      youyou: `${ms(imports.youyouWallMs.median)} ms (CPU ${ms(imports.youyouCpuMs)})`,
    });
  }
  if (summary.long) {
    const { long } = summary;
    const late = `t${long.turns - 10}–${long.turns}`;
    const flatness = (figures: LongFigures) =>
      `${fixed(figures.flatness.median, 2)}: ${ms(figures.earlyMs)} → ${ms(figures.lateMs)} ms`;
    row({
      scenario: `LONG ${long.turns}`,
      measure: `CPU per turn, ${late} / t1–10`,
      value: ratioText(long.youyou.flatness),
      goal: `≤ ${fixed(GOALS.long, 2)}`,
      raw: flatness(long.raw),
      youyou: flatness(long.youyou),
    });
    row({
      scenario: `LONG ${long.turns}`,
      measure: `CPU per turn, ${late}, youyou / raw`,
      value: ratioText(long.lateRatio),
      raw: `${ms(long.raw.lateMs)} ms`,
      youyou: `${ms(long.youyou.lateMs)} ms`,
    });
  }
  const { load } = context;
  return {
    title: `youyou-agent against the raw openai SDK loop: CPU (process.cpuUsage) in fresh processes, ${context.runs} rounds (LONG: ${context.longRuns})`,
    rows,
    notes: [
      'CPU of a run: setup + one turn + teardown (youyou: build the agent, open a session, sendMessage, turn.result, close, shutdown; raw: new OpenAI() and the loop)',
      'turn only: sendMessage to turn.result (raw: the loop). cold: run 1 of a fresh process; warm: run 3 of the same process',
      'ratios: median of the per-round ratios youyou / raw (the two sides of a round run one after the other), quartiles in brackets',
      `LONG: median CPU of the last 11 turns over that of turns 1–10, per process, after an untimed ${context.longWarmup}-turn session that warms the JIT`,
      'conversation: the TEXT run with a subscriber on session.conversation during the turn, against the plain library run of the same round (n/a: the library has none)',
      `load average (1 min) ${fixed(load.before, 1)} before, ${fixed(load.after, 1)} after, on ${load.cpus} CPUs; details of every process: bench/results/latest.json`,
    ],
  };
}

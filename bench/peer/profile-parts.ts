/**
 * Where a CPU profile's time went, by part: each dependency, Node's `fetch` (undici) and web
 * streams, the rest of Node's internals, the garbage collector, and this library by source
 * folder (`src/runtime`, `src/providers`, …, found through the built package's source maps,
 * which lead back to `src/`). Self time only, so the parts add up to the profile's busy time.
 * @module
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The parts of a V8 `.cpuprofile` this reads. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** Milliseconds of self time per part. */
export type PartTimes = Map<string, number>;

const maps = new Map<string, SourceMap | null>();

/** The source map of a built file (`<file>.map` next to it), or `null`. */
function sourceMapOf(url: string): SourceMap | null {
  let map = maps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return map;
}

/** The part a function belongs to, from its call frame. */
function partOf({
  functionName,
  url,
  lineNumber,
  columnNumber,
}: CpuProfile['nodes'][number]['callFrame']): string | null {
  if (url === '') {
    // Idle time, and the inspector serializing the profile as it stops, are not the turn's work.
    if (functionName === '(idle)' || functionName === 'dispatch') return null;
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === 'writev') return 'socket writes (writev)';
    return 'V8 and native code';
  }
  if (url.includes('/node_modules/youyou-agent/')) {
    const source = sourceMapOf(url)?.findEntry(lineNumber, columnNumber);
    const path = source && 'originalSource' in source ? source.originalSource : '';
    const inSrc = /\/src\/(.+)$/.exec(path)?.[1];
    if (!inSrc) return 'youyou-agent (unmapped)';
    const [first, second] = inSrc.split('/');
    // Folders one level deep (`runtime/steps`, `providers/openai`) say more than their parent.
    return `youyou-agent src/${second && inSrc.split('/').length > 2 ? `${first}/${second}` : first}`;
  }
  const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (dependency) return dependency;
  if (url.startsWith('node:internal/deps/undici')) return 'Node fetch (undici)';
  if (url.startsWith('node:internal/webstreams')) return 'Node web streams';
  if (url.startsWith('node:')) return 'Node (other)';
  return 'the bench itself';
}

/** Self time per part of one profile, in ms. */
export function partTimes(profile: CpuProfile): PartTimes {
  const partById = new Map(profile.nodes.map((node) => [node.id, partOf(node.callFrame)]));
  const times: PartTimes = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const part = partById.get(profile.samples[i]!);
    if (part == null) continue;
    times.set(part, (times.get(part) ?? 0) + profile.timeDeltas[i]! / 1000);
  }
  return times;
}

/**
 * `ToolSources`: the agent's tool sources, asked for their tools before each model request.
 *
 * - Each source's `tools()` runs within the deadline (its signal aborts then). A source that
 *   fails or is late serves its last good list, or is left out when it has none; either way a
 *   non-fatal `TOOL_SOURCE_UNAVAILABLE` is reported (once per turn and source).
 * - A source's `changes` drops its last good list: an outdated list is no fallback.
 * - Names: registered tools win. A source tool whose name a registered tool has, or that more
 *   than one source offers (then every source's tool of that name), or that is no valid tool, is
 *   left out of the request, and reported once per session, source and name as a non-fatal
 *   `NAME_CONFLICT` (or `INVALID_INPUT`).
 * - Sources are closed at shutdown, each within the deadline.
 * @module
 */
import type { Subscription } from 'rxjs';
import type { Clock } from '../clock.js';
import { AgentError, describeError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import { TOOL_NAME, toolParametersJsonSchema, type ToolHandler } from '../ports/tool-handler.js';
import type { ToolSource } from '../ports/tool-source.js';
import { TIMED_OUT, withTimeout } from '../timeout.js';
import type { ToolSpec } from '../types.js';

/** The source tools of one model request. */
export interface SourcedTools {
  /** By name, for the dispatcher. */
  readonly byName: ReadonlyMap<string, ToolHandler>;
  /** As the model sees them, after the registered tools' specs. */
  readonly specs: readonly ToolSpec[];
  /** Characters of the specs' JSON, for token estimates. */
  readonly specsChars: number;
}

/** No source tools (an agent without sources, or before the first request). */
export const NO_SOURCED_TOOLS: SourcedTools = { byName: new Map(), specs: [], specsChars: 0 };

/** Where one resolution reports, and what it already reported. */
export interface SourceReports {
  report(error: AgentError): void;
  /** Keys already reported in this turn (unavailable sources). */
  turn: Set<string>;
  /** Keys already reported in this session (left-out names). */
  session: Set<string>;
}

/** Specs by tool object: a source that serves the same objects again costs no conversion. */
const specCache = new WeakMap<ToolHandler, { spec: ToolSpec; chars: number }>();

/** The agent's tool sources. */
export interface ToolSources {
  /** How many sources are registered. */
  readonly size: number;
  /** The set of names reported in the session `owner` stands for. */
  sessionReports(owner: object): Set<string>;
  /** Every source's tools for the next request; never rejects. */
  resolve(signal: AbortSignal, reports: SourceReports): Promise<SourcedTools>;
  /** Closes every source, each within the deadline; resolves with the failures. */
  close(): Promise<AgentError[]>;
}

/**
 * The agent's tool sources. (Closures rather than a class: this is in every app's bundle, and
 * a minifier shortens local names but not property names.)
 * @throws AgentError `INVALID_INPUT` for a source without an id or `tools()`, `NAME_CONFLICT`
 * for two sources with one id.
 */
export function toolSources(
  sources: readonly ToolSource[],
  registered: (name: string) => boolean,
  timeoutMs: number,
  clock: Clock,
): ToolSources {
  const ids = new Set<string>();
  sources.forEach((source, i) => {
    if (typeof source?.id !== 'string' || !source.id || typeof source.tools !== 'function')
      throw Errors.invalidInput(`invalid toolSources[${i}]: needs an id and tools()`);
    if (ids.has(source.id)) throw Errors.nameConflict('tool source', source.id);
    ids.add(source.id);
  });
  /** Each source's last good list. */
  const lastGood = new Map<string, readonly ToolHandler[]>();
  /** Per session (by its scope object, so a closed session's set goes with it). */
  const bySession = new WeakMap<object, Set<string>>();
  let subscriptions: Subscription[] | undefined;
  const unavailable = (id: string, message: string, cause?: unknown) =>
    Errors.toolSourceUnavailable(id, message, cause);

  /** One source's list: fresh, else its last good one, else none. */
  const list = async (
    source: ToolSource,
    signal: AbortSignal,
    reports: SourceReports,
  ): Promise<readonly ToolHandler[]> => {
    const deadline = new AbortController();
    const onAbort = () => deadline.abort(signal.reason);
    signal.addEventListener('abort', onAbort);
    let failure: AgentError;
    try {
      const outcome = await withTimeout(
        Promise.resolve().then(() => source.tools(deadline.signal)),
        timeoutMs,
        () => deadline.abort(unavailable(source.id, 'deadline passed')),
        clock,
      );
      if (Array.isArray(outcome)) {
        lastGood.set(source.id, outcome);
        return outcome;
      }
      failure = unavailable(
        source.id,
        outcome === TIMED_OUT ? `no answer within ${timeoutMs}ms` : 'no array',
      );
    } catch (error) {
      failure =
        AgentError.isInstance(error) && error.code === 'TOOL_SOURCE_UNAVAILABLE'
          ? error
          : unavailable(source.id, describeError(error), error);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    // A cancelled request reports nothing: the source did not fail.
    if (!signal.aborted && !reports.turn.has(source.id)) {
      reports.turn.add(source.id);
      reports.report(failure);
    }
    return lastGood.get(source.id) ?? [];
  };

  return {
    size: sources.length,
    sessionReports(owner) {
      let set = bySession.get(owner);
      if (!set) bySession.set(owner, (set = new Set()));
      return set;
    },
    async resolve(signal, reports) {
      // Listens from the first request on: a build that fails leaves no subscription behind.
      subscriptions ??= sources.flatMap((source) => {
        try {
          const sub = source.changes?.subscribe({ next: () => lastGood.delete(source.id), error: () => {} });
          return sub ? [sub] : [];
        } catch {
          // A broken `changes` costs only the invalidation.
          return [];
        }
      });
      const lists = await Promise.all(sources.map((source) => list(source, signal, reports)));
      // A name more than one source offers is left out of all of them: which server the model
      // reaches must not depend on which answered first.
      const offered = new Map<unknown, number>();
      for (const tools of lists) {
        for (const name of new Set(tools.map((tool) => tool?.name)))
          offered.set(name, (offered.get(name) ?? 0) + 1);
      }
      const byName = new Map<string, ToolHandler>();
      const specs: ToolSpec[] = [];
      // The length of `JSON.stringify(specs)`, from each spec's own: its items, commas, brackets.
      let specsChars = 0;
      sources.forEach((source, i) => {
        for (const tool of lists[i]!) {
          const name = String(tool?.name);
          const conflict = registered(name)
            ? 'a registered tool has it'
            : offered.get(name)! > 1 || byName.has(name)
              ? 'another tool of a source has it (prefixed names avoid this)'
              : null;
          let cached = specCache.get(tool);
          let problem = !TOOL_NAME.test(name)
            ? Errors.invalidInput(`tool source '${source.id}': '${name}' is no valid tool name: left out`)
            : conflict &&
              new AgentError('NAME_CONFLICT', `tool source '${source.id}': '${name}' left out: ${conflict}`);
          if (!problem && !cached) {
            try {
              const spec = {
                name,
                description: String(tool.description ?? ''),
                parameters: toolParametersJsonSchema(tool),
              };
              cached = { spec, chars: JSON.stringify(spec).length };
              specCache.set(tool, cached);
            } catch (error) {
              problem = Errors.invalidInput(
                `tool source '${source.id}': '${name}' has parameters JSON Schema cannot express: left out`,
                error,
              );
            }
          }
          if (problem) {
            const key = `${source.id}\u0000${name}`;
            if (!reports.session.has(key)) {
              reports.session.add(key);
              reports.report(problem);
            }
          } else {
            byName.set(name, tool);
            specs.push(cached!.spec);
            specsChars += cached!.chars + 1;
          }
        }
      });
      return { byName, specs, specsChars: specs.length && specsChars + 1 };
    },
    async close() {
      subscriptions?.forEach((sub) => sub.unsubscribe());
      subscriptions = [];
      const failures: AgentError[] = [];
      await Promise.all(
        sources.map(async (source) => {
          try {
            const closing = source.close && Promise.resolve().then(() => source.close!());
            if (closing && (await withTimeout(closing, timeoutMs, undefined, clock)) === TIMED_OUT)
              failures.push(unavailable(source.id, `close() did not end within ${timeoutMs}ms`));
          } catch (error) {
            failures.push(unavailable(source.id, `close() failed: ${describeError(error)}`, error));
          }
        }),
      );
      return failures;
    },
  };
}

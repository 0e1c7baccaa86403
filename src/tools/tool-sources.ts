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
import { AgentError, Errors, describeError } from '../errors.js';
import type { ToolHandler } from '../ports/tool-handler.js';
import { parametersSchemaProblem, toolParametersJsonSchema } from '../ports/tool-handler.js';
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

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Specs by tool object: a source that serves the same objects again costs no conversion. */
const specCache = new WeakMap<ToolHandler, ToolSpec>();

/** The agent's tool sources. */
export class ToolSources {
  readonly #sources: readonly ToolSource[];
  readonly #registered: (name: string) => boolean;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  /** Each source's last good list. */
  readonly #lastGood = new Map<string, readonly ToolHandler[]>();
  readonly #subscriptions: Subscription[] = [];
  #listening = false;
  /** Per session (by its scope object, so a closed session's set goes with it). */
  readonly #sessionReports = new WeakMap<object, Set<string>>();

  /** @throws AgentError `NAME_CONFLICT` for two sources with one id. */
  constructor(
    sources: readonly ToolSource[],
    options: { registered(name: string): boolean; timeoutMs: number; clock: Clock },
  ) {
    const ids = new Set<string>();
    for (const source of sources) {
      if (ids.has(source.id)) throw Errors.nameConflict('tool source', source.id);
      ids.add(source.id);
    }
    this.#sources = sources;
    this.#registered = options.registered;
    this.#timeoutMs = options.timeoutMs;
    this.#clock = options.clock;
  }

  /** Listens to the sources' `changes` (from the first request on: a failed build leaves none). */
  #listen(): void {
    this.#listening = true;
    for (const source of this.#sources) {
      try {
        const sub = source.changes?.subscribe({
          next: () => this.#lastGood.delete(source.id),
          error: () => {},
        });
        if (sub) this.#subscriptions.push(sub);
      } catch {
        // A broken `changes` only costs the invalidation: the last good list stays a fallback.
      }
    }
  }

  /** Whether any source is registered. */
  get size(): number {
    return this.#sources.length;
  }

  /** The set of names reported in the session `owner` stands for. */
  sessionReports(owner: object): Set<string> {
    let set = this.#sessionReports.get(owner);
    if (!set) this.#sessionReports.set(owner, (set = new Set()));
    return set;
  }

  /** Every source's tools for the next request; never rejects. */
  async resolve(signal: AbortSignal, reports: SourceReports): Promise<SourcedTools> {
    if (this.#sources.length === 0) return NO_SOURCED_TOOLS;
    if (!this.#listening) this.#listen();
    const lists = await Promise.all(this.#sources.map((source) => this.#list(source, signal, reports)));
    // A name more than one source offers is left out of all of them: which server the model
    // reaches must not depend on which answered first.
    const offered = new Map<string, number>();
    for (const list of lists) {
      for (const name of new Set(list.map((tool) => (tool as { name?: unknown } | null)?.name))) {
        if (typeof name === 'string') offered.set(name, (offered.get(name) ?? 0) + 1);
      }
    }
    const byName = new Map<string, ToolHandler>();
    const specs: ToolSpec[] = [];
    this.#sources.forEach((source, i) => {
      for (const tool of lists[i]!) {
        const problem = this.#problem(source.id, tool, offered, byName);
        const spec = problem ?? specOf(tool);
        if (AgentError.isInstance(spec)) {
          const key = `${source.id}\u0000${String((tool as { name?: unknown } | null)?.name)}`;
          if (!reports.session.has(key)) {
            reports.session.add(key);
            reports.report(spec);
          }
          continue;
        }
        byName.set(tool.name, tool);
        specs.push(spec);
      }
    });
    return { byName, specs, specsChars: specs.length ? JSON.stringify(specs).length : 0 };
  }

  /** Closes every source, each within the deadline; resolves with the failures. */
  async close(): Promise<AgentError[]> {
    this.#listening = true;
    for (const sub of this.#subscriptions.splice(0)) sub.unsubscribe();
    const failures: AgentError[] = [];
    await Promise.all(
      this.#sources.map(async (source) => {
        if (typeof source.close !== 'function') return;
        try {
          const outcome = await withTimeout(source.close(), this.#timeoutMs, undefined, this.#clock);
          if (outcome === TIMED_OUT) {
            failures.push(
              Errors.toolSourceUnavailable(source.id, `close() did not finish within ${this.#timeoutMs}ms`),
            );
          }
        } catch (error) {
          failures.push(
            Errors.toolSourceUnavailable(source.id, `close() failed: ${describeError(error)}`, error),
          );
        }
      }),
    );
    return failures;
  }

  /** One source's list: fresh, else its last good one, else none. */
  async #list(
    source: ToolSource,
    signal: AbortSignal,
    reports: SourceReports,
  ): Promise<readonly ToolHandler[]> {
    const deadline = new AbortController();
    const onAbort = () => deadline.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let failure: AgentError;
    try {
      const outcome = await withTimeout(
        Promise.resolve().then(() => source.tools(deadline.signal)),
        this.#timeoutMs,
        () => deadline.abort(Errors.toolSourceUnavailable(source.id, 'deadline passed')),
        this.#clock,
      );
      if (outcome !== TIMED_OUT && Array.isArray(outcome)) {
        this.#lastGood.set(source.id, outcome);
        return outcome;
      }
      failure =
        outcome === TIMED_OUT
          ? Errors.toolSourceUnavailable(source.id, `tools() did not answer within ${this.#timeoutMs}ms`)
          : Errors.toolSourceUnavailable(source.id, 'tools() did not resolve to an array');
    } catch (error) {
      failure =
        AgentError.isInstance(error) && error.code === 'TOOL_SOURCE_UNAVAILABLE'
          ? error
          : Errors.toolSourceUnavailable(source.id, describeError(error), error);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
    // A cancelled request reports nothing: the source did not fail.
    if (!signal.aborted && !reports.turn.has(source.id)) {
      reports.turn.add(source.id);
      reports.report(failure);
    }
    return this.#lastGood.get(source.id) ?? [];
  }

  /** Why `tool` is left out, as an error of its source, or `null`. */
  #problem(
    id: string,
    tool: ToolHandler,
    offered: ReadonlyMap<string, number>,
    taken: ReadonlyMap<string, ToolHandler>,
  ): AgentError | null {
    const name = (tool as { name?: unknown } | null)?.name;
    if (
      typeof name !== 'string' ||
      !TOOL_NAME.test(name) ||
      typeof tool.execute !== 'function' ||
      parametersSchemaProblem(tool.parameters) !== undefined
    ) {
      return Errors.invalidInput(
        `tool source '${id}': tool '${String(name)}' is left out: it needs a name of 1–64 characters of a-z, A-Z, 0-9, _ or -, a zod schema and execute()`,
      );
    }
    if (this.#registered(name)) {
      return new AgentError(
        'NAME_CONFLICT',
        `tool source '${id}': tool '${name}' is left out: a registered tool has its name`,
      );
    }
    if ((offered.get(name) ?? 0) > 1 || taken.has(name)) {
      return new AgentError(
        'NAME_CONFLICT',
        `tool source '${id}': tool '${name}' is left out: another tool source offers a tool of that name (prefixed names avoid this)`,
      );
    }
    return null;
  }
}

function specOf(tool: ToolHandler): ToolSpec | AgentError {
  const cached = specCache.get(tool);
  if (cached) return cached;
  try {
    const spec = {
      name: tool.name,
      description: String(tool.description ?? ''),
      parameters: toolParametersJsonSchema(tool),
    };
    specCache.set(tool, spec);
    return spec;
  } catch (error) {
    return Errors.invalidInput(
      `tool '${tool.name}' is left out: JSON Schema cannot express its parameters (${describeError(error)})`,
      error,
    );
  }
}

/**
 * `SessionPrompt`: the system prompt of one session. It owns the stable part's cache (built once,
 * rebuilt after a summary compaction) and the memories loaded for the dynamic part; a
 * {@link TurnPrompt} adds one turn's environment context and dynamic sections.
 * @module
 */
import * as z from 'zod/mini';
import { EnvironmentContextSchema, type EnvironmentContextSource } from '../config.js';
import { describeError, type AgentError } from '../errors.js';
import * as Errors from '../error-constructors.js';
import type { Memory } from '../types.js';
import { buildDynamic, buildStable, combine, type StablePromptInput } from './prompt-builder.js';

/** The stable part's cache and the session's memories. */
export class SessionPrompt {
  #stable: string | null = null;
  #memories: readonly Memory[] = [];

  readonly #stableInput: () => StablePromptInput;

  constructor(stableInput: () => StablePromptInput) {
    this.#stableInput = stableInput;
  }

  /** The stable part, built on first use and after {@link invalidate}. */
  stable(): string {
    return (this.#stable ??= buildStable(this.#stableInput()));
  }

  /** Drops the cached stable part (a summary compaction changed what the model was told). */
  invalidate(): void {
    this.#stable = null;
  }

  /** The memories the dynamic part lists. */
  get memories(): readonly Memory[] {
    return this.#memories;
  }

  /** Sets the memories loaded for this session. */
  useMemories(memories: readonly Memory[]): void {
    this.#memories = memories;
  }
}

/** One turn's prompt: its environment context is resolved once, on first use. */
export class TurnPrompt {
  #environment: Promise<Record<string, string> | undefined> | null = null;

  readonly #session: SessionPrompt;
  readonly #environmentSource: EnvironmentContextSource | undefined;
  readonly #report: (error: AgentError) => void;

  constructor(
    session: SessionPrompt,
    environmentSource: EnvironmentContextSource | undefined,
    report: (error: AgentError) => void,
  ) {
    this.#session = session;
    this.#environmentSource = environmentSource;
    this.#report = report;
  }

  /** The system prompt of the turn's next request. */
  async build(dynamicSections: readonly string[]): Promise<string> {
    const environment = await (this.#environment ??= this.#resolveEnvironment());
    const dynamic = buildDynamic({
      memories: this.#session.memories,
      ...(environment !== undefined && { environmentContext: environment }),
      dynamicSections,
    });
    return combine(this.#session.stable(), dynamic);
  }

  /** A failing or invalid source is reported and leaves the environment out of this turn. */
  async #resolveEnvironment(): Promise<Record<string, string> | undefined> {
    const source = this.#environmentSource;
    try {
      const value = typeof source === 'function' ? await source() : source;
      if (value === undefined) return undefined;
      const parsed = z.safeParse(EnvironmentContextSchema, value);
      if (!parsed.success) throw new Error('environmentContext must be a record of strings');
      return parsed.data;
    } catch (error) {
      this.#report(Errors.invalidInput(`environmentContext failed: ${describeError(error)}`, error));
      return undefined;
    }
  }
}

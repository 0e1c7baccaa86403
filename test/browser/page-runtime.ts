/**
 * The page side of the browser harness: a page bundle registers named async functions with
 * {@link exposeToHarness}; the Node side (`harness.ts`) calls them by name and gets back either
 * the JSON result or the error (name, message, stack, AgentError code), so a failure in the page
 * fails the vitest test that called it, with the page's message.
 * @module
 */

/** A function the Node side may call; arguments and result cross as JSON. */
export type PageFunction = (...args: never[]) => Promise<unknown>;

/** What a call returns across the page boundary. */
export type CallOutcome =
  | { ok: true; value: unknown }
  | { ok: false; error: { name: string; message: string; stack?: string; code?: string } };

/** The object the harness finds on `globalThis` once the page is ready. */
export interface PageHarness {
  names: string[];
  call(name: string, args: unknown[]): Promise<CallOutcome>;
}

/** The global the harness waits for. */
export const HARNESS_GLOBAL = '__youyouHarness';

/** Makes `functions` callable from Node; call once, at the end of the page's entry module. */
export function exposeToHarness(functions: Record<string, PageFunction>): void {
  const harness: PageHarness = {
    names: Object.keys(functions),
    async call(name, args) {
      const fn = functions[name] as ((...args: unknown[]) => Promise<unknown>) | undefined;
      try {
        if (!fn) throw new Error(`the page has no function '${name}'`);
        return { ok: true, value: await fn(...args) };
      } catch (error) {
        const e = error instanceof Error ? error : new Error(String(error));
        const code = (e as { code?: unknown }).code;
        return {
          ok: false,
          error: {
            name: e.name,
            message: e.message,
            stack: e.stack,
            ...(typeof code === 'string' ? { code } : {}),
          },
        };
      }
    },
  };
  (globalThis as Record<string, unknown>)[HARNESS_GLOBAL] = harness;
}

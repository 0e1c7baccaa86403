/**
 * `AgentError`, the one error type of the runtime, and `Errors`, its constructors per code. The
 * runtime's own modules import the constructors from `error-constructors.ts` as a namespace (see
 * there why); this module gathers both for everything else.
 * @module
 */
export * from './agent-error.js';
export * as Errors from './error-constructors.js';

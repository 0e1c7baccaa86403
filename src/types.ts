/**
 * The runtime's values: every type of the public contract as a `zod/mini` schema
 * with its inferred type beside it. The library validates with `zod/mini` (≈4 kB gzipped instead
 * of classic zod's ≈92 kB); both flavours share zod 4's core, so user schemas may use either.
 *
 * The values live in `vocabulary/`, one file per concept, in the order a reader meets them; this
 * file gathers them so that one import reaches everything that crosses a boundary.
 * @module
 */
export * from './vocabulary/error-codes.js';
export * from './vocabulary/content.js';
export * from './vocabulary/messages.js';
export * from './vocabulary/usage.js';
export * from './vocabulary/tools.js';
export * from './vocabulary/models.js';
export * from './vocabulary/skills-and-memory.js';
export * from './vocabulary/sessions.js';
export * from './vocabulary/agent-events.js';
export * from './vocabulary/hooks.js';
export * from './vocabulary/turns.js';

/**
 * The request bodies, one `zod/mini` schema each. What the runtime checks itself (a message's
 * input, a budget, a session config) passes through as it came, so the handler and a local
 * session reject the same things with the same words.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';

/** `POST /sessions`. */
export const CreateBody = /* @__PURE__ */ (() => z.strictObject({ config: z.optional(z.unknown()) }))();

/** `POST /sessions/:id/turns`. */
export const TurnBody = /* @__PURE__ */ (() =>
  z.strictObject({
    input: z.unknown(),
    options: z.optional(
      z.strictObject({
        output: z.optional(
          z.strictObject({
            name: z.string().check(z.minLength(1)),
            maxRepairs: z.optional(integer().check(z.minimum(0))),
          }),
        ),
        budget: z.optional(z.unknown()),
      }),
    ),
  }))();

/** `POST /sessions/:id/continue`. */
export const ContinueBody = /* @__PURE__ */ (() =>
  z.strictObject({
    options: z.optional(z.strictObject({ rerunMaybeExecuted: z.optional(z.boolean()) })),
  }))();

/** `POST /sessions/:id/turns/:turnId/approvals/:callId`. */
export const DecisionBody = /* @__PURE__ */ (() =>
  z.strictObject({
    approved: z.boolean(),
    always: z.optional(z.boolean()),
    reason: z.optional(z.string()),
  }))();

/** `GET /sessions?cursor&limit`. */
export const ListQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    cursor: z.optional(z.string().check(z.maxLength(1000))),
    limit: z.optional(z.string().check(z.regex(/^\d{1,3}$/))),
  }))();

/**
 * The models a provider serves: model info and pricing.
 *
 * Each module-scope schema is built inside an arrow call marked `@__PURE__`, so that a bundler
 * drops the ones an app does not use.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from './checks.js';

/** Schema of {@link ModelPricing}. */
export const ModelPricingSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    inputPerMillion: z.number().check(z.minimum(0)),
    cachedInputPerMillion: z.optional(z.number().check(z.minimum(0))),
    outputPerMillion: z.number().check(z.minimum(0)),
  }))();
/** Prices in USD per million tokens. */
export type ModelPricing = z.infer<typeof ModelPricingSchema>;

/** Schema of {@link ModelInfo}. */
export const ModelInfoSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string().check(z.minLength(1)),
    displayName: z.string(),
    contextWindow: integer().check(z.minimum(1)),
    capabilities: z.strictObject({
      toolUse: z.boolean(),
      vision: z.boolean(),
      streaming: z.boolean(),
    }),
    pricing: z.optional(ModelPricingSchema),
  }))();
/** A model a provider serves. */
export type ModelInfo = z.infer<typeof ModelInfoSchema>;

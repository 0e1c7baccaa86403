/**
 * The demo's structured answer: a trip plan. "Plan a trip" sends a message asking for this
 * schema, and the trip card fills in as the model writes the plan.
 * @module
 */
import * as z from 'zod/mini';

/** A trip plan: a title, and what to do each day. */
export const TripPlanSchema = z.object({
  title: z.string(),
  days: z.array(z.object({ day: z.number(), plan: z.string() })),
});
export type TripPlan = z.infer<typeof TripPlanSchema>;

/** The message "Plan a trip" sends. */
export const TRIP_PROMPT = 'Plan a three-day trip to Kyoto.';

/** A plan's partial object as it streams: any field may still be missing. */
export type PartialTripPlan = { title?: string; days?: { day?: number; plan?: string }[] };

/**
 * The stored usage of a session: one `usage` metadata record per model response, and their sum,
 * from which a resumed session's totals (budgets, `conversation.usage` and `cost`) go on.
 * @module
 */
import * as z from 'zod/mini';
import { addResponse, NO_USAGE, type UsageTotals } from '../conversation/usage-totals.js';
import { TokenUsageSchema, type SessionEvent, type SessionEventPayload, type TokenUsage } from '../types.js';
import { USAGE_KEY } from './metadata-keys.js';
import { recordOf } from './metadata-records.js';

const UsageRecordSchema = /* @__PURE__ */ (() =>
  z.looseObject({
    turnId: z.nullable(z.string()),
    usage: TokenUsageSchema,
    cost: z.optional(z.number().check(z.minimum(0))),
  }))();

/** The record of one response's usage (`turnId` `null` outside a turn). */
export function usageRecord(
  turnId: string | null,
  usage: TokenUsage,
  cost: number | undefined,
): SessionEventPayload {
  return {
    type: 'metadata',
    key: USAGE_KEY,
    value: cost === undefined ? { turnId, usage } : { turnId, usage, cost },
  };
}

/**
 * The sum of a session's stored usage records, or of one turn's when `turnId` is given; records
 * that do not parse are skipped.
 * @example
 * storedUsageTotals((await storage.loadSession(id)) ?? []).cost; // USD so far, or null
 */
export function storedUsageTotals(events: readonly SessionEvent[], turnId?: string): UsageTotals {
  let totals = NO_USAGE;
  for (const event of events) {
    const record = recordOf(event, USAGE_KEY, UsageRecordSchema);
    if (record === null || (turnId !== undefined && record.turnId !== turnId)) continue;
    totals = addResponse(totals, record.usage, record.cost);
  }
  return totals;
}

/**
 * The caller's request body, made safe to forward: read within a size and a time limit, parsed
 * as JSON, checked to be a Chat Completions request, its model checked against the allowed ones
 * and its output-token fields clamped; `n`, when given, must be 1. Every other field goes through
 * as the caller wrote it.
 * @module
 */
import * as z from 'zod/mini';
import { integer } from '../vocabulary/checks.js';
import { formatIssues } from '../errors.js';
import type { ProxyRefusal } from './model-proxy-errors.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, readBody } from './read-body.js';

/** A Chat Completions request: the fields the proxy reads; the rest passes through unchecked. */
const ChatCompletionsBodySchema = /* @__PURE__ */ (() => {
  const tokenLimit = z.optional(z.nullable(integer().check(z.minimum(0))));
  return z.looseObject({
    model: z.string().check(z.minLength(1)),
    messages: z.array(z.unknown()),
    max_tokens: tokenLimit,
    max_completion_tokens: tokenLimit,
    // One choice per request: `n` multiplies the tokens a caller spends past `maxOutputTokens`.
    n: z.optional(z.nullable(z.literal(1))),
  });
})();

/** A parsed request body (a JSON object with `model` and `messages`). */
export type ChatCompletionsBody = z.infer<typeof ChatCompletionsBodySchema>;

/** What the proxy enforces on a body. */
export interface BodyRules {
  readonly models?: readonly string[] | undefined;
  readonly maxOutputTokens?: number | undefined;
}

const invalid = (message: string, status = 400): ProxyRefusal => ({ status, code: 'INVALID_INPUT', message });
const tooLarge = () => invalid(`the request body is larger than ${MAX_BODY_BYTES} bytes`, 413);

/**
 * The body's bytes, or a refusal: 413 over {@link MAX_BODY_BYTES} (by `content-length` before
 * anything is read, or while reading, which stops there), 408 when it takes longer than 30 s.
 */
async function readBytes(request: Request): Promise<Uint8Array | ProxyRefusal> {
  if (!request.body) return invalid('the request has no body');
  const read = await readBody(request);
  if (!read.ok) {
    if (read.reason === 'too_large') return tooLarge();
    if (read.reason === 'late')
      return invalid(`the request body did not arrive within ${BODY_TIMEOUT_MS}ms`, 408);
    return invalid('the request body could not be read');
  }
  if (request.signal.aborted) return invalid('the request was aborted while its body was read');
  return read.bytes;
}

/**
 * Clamps `max_tokens` and `max_completion_tokens` to `limit`. A request that names neither gets
 * `max_completion_tokens: limit`, so leaving the fields out is not a way around the cap. That is
 * the field OpenAI reads today (its reasoning models refuse `max_tokens`); a caller talking to a
 * server that reads only `max_tokens` sends that field itself, and it is clamped too. `null`
 * means "no limit" on the wire, so it is treated as absent.
 */
function clamp(body: ChatCompletionsBody, limit: number): ChatCompletionsBody {
  const clamped: ChatCompletionsBody = { ...body };
  let named = false;
  for (const field of ['max_tokens', 'max_completion_tokens'] as const) {
    const value = clamped[field];
    if (value === null || value === undefined) {
      delete clamped[field];
    } else {
      named = true;
      clamped[field] = Math.min(value, limit);
    }
  }
  if (!named) clamped.max_completion_tokens = limit;
  return clamped;
}

/** What {@link readChatBody} gives: the body to forward, or the proxy's own refusal. */
export type ReadChatBody = { ok: true; body: ChatCompletionsBody } | { ok: false; refusal: ProxyRefusal };

/**
 * Reads `request`'s body and applies `rules`: the body to forward, or why it is refused (400
 * malformed JSON, not a Chat Completions request, `n` other than 1, or a model not in
 * `rules.models`; 413 too large; 408 too slow). Which one it is, is in `ok`, never in the body's
 * shape: a caller's body may hold any field.
 * @example
 * const read = await readChatBody(request, { models: ['gpt-4o-mini'], maxOutputTokens: 1024 });
 * if (!read.ok) return refusalResponse(read.refusal);
 */
export async function readChatBody(request: Request, rules: BodyRules): Promise<ReadChatBody> {
  const checked = await checkedBody(request, rules);
  return 'refusal' in checked ? { ok: false, refusal: checked.refusal } : { ok: true, body: checked.body };
}

async function checkedBody(
  request: Request,
  rules: BodyRules,
): Promise<{ body: ChatCompletionsBody } | { refusal: ProxyRefusal }> {
  const refuse = (refusal: ProxyRefusal) => ({ refusal });
  const bytes = await readBytes(request);
  if (!(bytes instanceof Uint8Array)) return refuse(bytes);
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return refuse(invalid('the request body is not valid JSON'));
  }
  const parsed = ChatCompletionsBodySchema.safeParse(json);
  if (!parsed.success) {
    return refuse(invalid(`invalid chat completions request: ${formatIssues(parsed.error.issues, 'request')}`));
  }
  const body = parsed.data;
  if (rules.models && !rules.models.includes(body.model)) {
    // The name is the caller's text: shown, but cut so a huge one does not fill the answer.
    return refuse(invalid(`model '${body.model.slice(0, 100)}' is not offered by this server`));
  }
  return { body: rules.maxOutputTokens === undefined ? body : clamp(body, rules.maxOutputTokens) };
}

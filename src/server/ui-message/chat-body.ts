/**
 * `POST …/chat`: the body the AI SDK's `DefaultChatTransport` sends, `{ id, messages, trigger,
 * messageId? }` (plus what a page adds, of which `options` is read). The history is the server's:
 * only the last message is read — a user message (a new turn) or the assistant message whose tool
 * parts carry approval answers.
 * @module
 */
import * as z from 'zod/mini';
import { Errors } from '../../errors.js';
import type { ContentBlock, UserInput } from '../../types.js';
import { parseInput } from '../../validate.js';
import { TurnBody } from '../bodies.js';

/** A chat id: the session id, as a path segment may carry it. */
const ChatId = /* @__PURE__ */ (() => z.string().check(z.regex(/^[A-Za-z0-9._~:@-]{1,200}$/)))();

const ChatBody = /* @__PURE__ */ (() =>
  z.looseObject({
    id: ChatId,
    messages: z.array(z.unknown()).check(z.minLength(1), z.maxLength(10_000)),
    trigger: z.enum(['submit-message', 'regenerate-message']),
    messageId: z.optional(z.string()),
    options: z.optional(z.unknown()),
  }))();

const TextPart = /* @__PURE__ */ (() => z.looseObject({ type: z.literal('text'), text: z.string() }))();
const FilePart = /* @__PURE__ */ (() =>
  z.looseObject({ type: z.literal('file'), mediaType: z.string(), url: z.string() }))();

const UserMessage = /* @__PURE__ */ (() =>
  z.looseObject({
    id: z.string().check(z.minLength(1), z.maxLength(200)),
    role: z.literal('user'),
    parts: z.array(z.looseObject({ type: z.string() })).check(z.minLength(1)),
  }))();

const ApprovalPart = /* @__PURE__ */ (() =>
  z.looseObject({
    type: z.string(),
    toolCallId: z.string(),
    state: z.literal('approval-responded'),
    approval: z.looseObject({ id: z.string(), approved: z.boolean(), reason: z.optional(z.string()) }),
  }))();

const AssistantMessage = /* @__PURE__ */ (() =>
  z.looseObject({
    id: z.string(),
    role: z.literal('assistant'),
    parts: z.array(z.unknown()),
  }))();

/** One approval answer a page sent. */
export interface ChatDecision {
  callId: string;
  approved: boolean;
  reason?: string;
}

/** What a `/chat` request asks for. */
export type ChatRequest =
  | { kind: 'message'; id: string; messageId: string; input: UserInput; options: unknown }
  | { kind: 'approvals'; id: string; messageId: string; decisions: ChatDecision[]; options: unknown };

/** The request a `/chat` body makes (`INVALID_INPUT` for anything else). */
export function chatRequest(body: unknown): ChatRequest {
  const parsed = parseInput(ChatBody, body, 'body');
  if (parsed.trigger === 'regenerate-message') throw Errors.invalidInput('regenerate is not supported');
  // Checked as `POST …/turns` checks its options.
  const { options } = parseInput(TurnBody, { input: null, options: parsed.options }, 'body');
  const last = parsed.messages[parsed.messages.length - 1];
  const user = z.safeParse(UserMessage, last);
  if (user.success) {
    const content = user.data.parts.map(userBlock);
    return { kind: 'message', id: parsed.id, messageId: user.data.id, input: { content }, options };
  }
  const assistant = z.safeParse(AssistantMessage, last);
  if (assistant.success) {
    const decisions: ChatDecision[] = [];
    for (const part of assistant.data.parts) {
      const answered = z.safeParse(ApprovalPart, part);
      if (!answered.success) continue;
      const { approval } = answered.data;
      decisions.push({
        callId: approval.id,
        approved: approval.approved,
        ...(approval.reason !== undefined && { reason: approval.reason }),
      });
    }
    if (decisions.length > 0)
      return { kind: 'approvals', id: parsed.id, messageId: assistant.data.id, decisions, options };
  }
  throw Errors.invalidInput(
    'invalid body.messages: the last message must be a user message or an assistant message with approval answers',
  );
}

/** A user message's part as input: text, or an image as a `data:` URL. */
function userBlock(part: { type: string }): ContentBlock {
  const text = z.safeParse(TextPart, part);
  if (text.success) return { type: 'text', text: text.data.text };
  const file = z.safeParse(FilePart, part);
  if (file.success) {
    const match = /^data:(image\/[\w.+-]+);base64,(.+)$/.exec(file.data.url);
    if (match) return { type: 'image', mediaType: match[1]!, data: match[2]! };
    throw Errors.invalidInput('invalid body.messages: a file part must be an image as a base64 data: URL');
  }
  throw Errors.invalidInput(`invalid body.messages: unsupported part type '${part.type}'`);
}

/**
 * Keeps the proxy's API key out of what it relays. An upstream may echo the key (a 401 body that
 * quotes the header it got, a debugging proxy's error page), and the relayed body goes straight to
 * the caller, who must never see it. The body is streamed, so the key may straddle two chunks:
 * the stream holds back only the end of a chunk that could be the start of the key, which for
 * Server-Sent Events (chunks end with a blank line) is nothing, so streaming is not delayed.
 * @module
 */
import { SecretRedactor } from '../providers/openai/redact-secrets.js';

/**
 * How many characters at the end of `text` could begin `secret`: the length of the longest suffix
 * of `text` that is a proper prefix of `secret`.
 */
function heldBack(text: string, secret: string): number {
  for (let length = Math.min(secret.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(secret.slice(0, length))) return length;
  }
  return 0;
}

/**
 * A byte stream transform that replaces `secret` with `[redacted]` wherever it occurs, also
 * across chunk boundaries. The bytes are read as UTF-8 (what Chat Completions bodies are). A
 * secret too short to be one (a placeholder such as `'ollama'`) is left alone, as the provider's
 * own error redaction does.
 * @example
 * const safe = upstream.body.pipeThrough(redactingStream(apiKey));
 */
export function redactingStream(secret: string): TransformStream<Uint8Array, Uint8Array> {
  const redactor = new SecretRedactor([secret]);
  const active = redactor.text(secret) !== secret;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let carry = '';
  return new TransformStream({
    transform(chunk, controller) {
      const text = redactor.text(carry + decoder.decode(chunk, { stream: true }));
      const keep = active ? heldBack(text, secret) : 0;
      carry = text.slice(text.length - keep);
      const ready = text.slice(0, text.length - keep);
      if (ready) controller.enqueue(encoder.encode(ready));
    },
    flush(controller) {
      const rest = redactor.text(carry + decoder.decode());
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
}

/** `text` with the secret replaced (for header values and error messages). */
export function redactText(text: string, secret: string): string {
  return new SecretRedactor([secret]).text(text);
}

/**
 * "Retrying in N s": shown while the runtime waits before another attempt of a failed request,
 * counting down; hidden when the next attempt has started producing output or the turn ended.
 * @module
 */
import type { Conversation } from 'youyou-agent';
import { h } from './dom.js';

/** A failed attempt that will be retried (the runtime's `retry_scheduled` event). */
export interface RetryScheduled {
  turnId: string | null;
  /** The attempt that failed (1 for the first). */
  attempt: number;
  delayMs: number;
  message: string;
  /** When the wait started (ms since the epoch, by this page's clock). */
  startedAt: number;
}

export class RetryBanner {
  readonly element = h('div', { class: 'retry-banner', attrs: { role: 'status', 'aria-live': 'polite' } });
  #retry: RetryScheduled | null = null;
  #timer: ReturnType<typeof setInterval> | undefined;
  #itemsAtRetry: Conversation['items'] | null = null;

  constructor() {
    this.element.hidden = true;
  }

  /** A failed attempt will be retried after `retry.delayMs`. */
  scheduled(retry: RetryScheduled, conversation: Conversation): void {
    this.#retry = retry;
    this.#itemsAtRetry = conversation.items;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#draw(), 200);
    this.#draw();
  }

  /** Hides the banner once the turn ended or the next attempt streams. */
  update(conversation: Conversation): void {
    if (!this.#retry) return;
    const ended = conversation.turn === null || conversation.turn.id !== this.#retry.turnId;
    // Anything new after the wait comes from the next attempt.
    const nextAttempt =
      conversation.items !== this.#itemsAtRetry && Date.now() >= this.#retry.startedAt + this.#retry.delayMs;
    if (ended || nextAttempt) this.#hide();
  }

  #draw(): void {
    const retry = this.#retry;
    if (!retry) return;
    const left = Math.max(0, retry.startedAt + retry.delayMs - Date.now());
    this.element.hidden = false;
    this.element.textContent =
      left > 0
        ? `Attempt ${retry.attempt} failed (${retry.message}). Retrying in ${Math.ceil(left / 1000)} s\u2026`
        : `Attempt ${retry.attempt} failed (${retry.message}). Retrying now\u2026`;
  }

  #hide(): void {
    clearInterval(this.#timer);
    this.#retry = null;
    this.#itemsAtRetry = null;
    this.element.hidden = true;
  }
}

/**
 * Under the chat: the session's usage and cost, and the context meter (estimated tokens of the
 * context against the model's window, with the compaction threshold marked).
 * @module
 */
import type { Conversation } from 'youyou-agent';
import { formatCost, formatCount, h } from './dom.js';

export class StatusBar {
  readonly #usage = h('span', { class: 'usage' });
  readonly #fill = h('div', { class: 'meter-fill' });
  readonly #mark = h('div', { class: 'meter-mark', attrs: { title: 'compaction threshold' } });
  readonly #meter = h(
    'div',
    { class: 'meter', attrs: { role: 'meter', 'aria-label': 'Context used' } },
    this.#fill,
    this.#mark,
  );
  readonly #context = h('span', { class: 'context' });
  readonly #budgetFill = h('div', { class: 'meter-fill' });
  readonly #budgetMeter = h(
    'div',
    { class: 'meter budget-meter', attrs: { role: 'meter', 'aria-label': 'Session budget used' } },
    this.#budgetFill,
  );
  readonly #budgetText = h('span', { class: 'budget-text' });
  readonly #budget = h(
    'span',
    { class: 'budget', attrs: { hidden: '' } },
    this.#budgetText,
    this.#budgetMeter,
  );
  readonly element = h(
    'footer',
    { class: 'status-bar' },
    this.#usage,
    this.#budget,
    h('span', { class: 'context-wrap' }, this.#context, this.#meter),
  );

  /** `budgetUsd`: the session budget, `0` for none (then no budget meter). */
  update(conversation: Conversation, budgetUsd = 0): void {
    this.#showBudget(conversation.cost ?? 0, budgetUsd);
    const { usage, cost, context } = conversation;
    this.#usage.textContent =
      `Session: ${formatCount(usage.inputTokens)} in / ${formatCount(usage.outputTokens)} out` +
      ` \u00b7 ${cost === null ? 'cost unknown' : formatCost(cost)}`;
    const used = Math.min(1, context.estimatedTokens / context.contextWindow);
    this.#fill.style.width = `${(used * 100).toFixed(1)}%`;
    this.#fill.classList.toggle('over', context.estimatedTokens >= context.compactAt);
    this.#mark.style.left = `${((context.compactAt / context.contextWindow) * 100).toFixed(1)}%`;
    this.#meter.setAttribute('aria-valuenow', String(context.estimatedTokens));
    this.#meter.setAttribute('aria-valuemax', String(context.contextWindow));
    this.#context.textContent =
      `Context \u2248 ${formatCount(context.estimatedTokens)} / ${formatCount(context.contextWindow)}` +
      ` (compacts at ${formatCount(context.compactAt)})`;
  }

  /** The session's spending against its budget, as the runtime counts it (resumed turns included). */
  #showBudget(spent: number, budget: number): void {
    this.#budget.hidden = budget <= 0;
    if (budget <= 0) return;
    const used = Math.min(1, spent / budget);
    this.#budgetFill.style.width = `${(used * 100).toFixed(1)}%`;
    this.#budgetFill.classList.toggle('over', used >= 1);
    this.#budgetMeter.setAttribute('aria-valuenow', String(spent));
    this.#budgetMeter.setAttribute('aria-valuemax', String(budget));
    this.#budgetText.textContent = `Budget ${formatCost(spent)} of ${formatCost(budget)}`;
  }
}

/**
 * `ConversationItems`: the items of one conversation and what locating them takes — the
 * transcript position of the next message (item ids come from it), the compaction count, the
 * assistant item being streamed and each call's tool item.
 *
 * The array is copy-on-write: {@link ConversationItems.snapshot} hands the current array out and
 * the next write copies it once, so any number of changes between two snapshots costs one copy
 * of references, and items that did not change stay the same objects.
 * @module
 */
import type { ConversationItem } from './schema.js';

/** A tool item. */
export type ToolItem = Extract<ConversationItem, { kind: 'tool' }>;
/** An assistant item. */
export type AssistantItem = Extract<ConversationItem, { kind: 'assistant' }>;

/** The id of the item a message produces: its position in the session's transcript. */
export function messageItemId(position: number): string {
  return `message-${position}`;
}

/** The mutable state the derivation and the live reducer both work on. */
export class ConversationItems {
  #items: ConversationItem[] = [];
  /** Whether `#items` was handed out by `snapshot()`: then the next write copies it. */
  #shared = false;
  /** callId → index of the latest tool item of that call (some servers reuse ids across turns). */
  readonly #tools = new Map<string, number>();
  /**
   * Position of the next message in the session's transcript: every message ever appended, in
   * order — compaction does not renumber — with the interrupted-message note counted where resume
   * derives it again. A resumed session counts the same way, so ids agree.
   */
  nextMessage = 0;
  /** Compactions so far (each adds one notice). */
  compactions = 0;
  /** Index of the assistant item being streamed, or `null`. */
  streaming: number | null = null;

  /** How many items there are. */
  get length(): number {
    return this.#items.length;
  }

  /** The item at `index`. */
  at(index: number): ConversationItem {
    return this.#items[index]!;
  }

  /** Appends an item; returns its index. */
  push(item: ConversationItem): number {
    this.#writable().push(item);
    const index = this.#items.length - 1;
    if (item.kind === 'tool') this.#tools.set(item.callId, index);
    return index;
  }

  /** Replaces the item at `index` (a no-op for the same object). */
  set(index: number, item: ConversationItem): void {
    if (this.#items[index] === item) return;
    this.#writable()[index] = item;
  }

  /** Index of the latest tool item of `callId`, or `undefined`. */
  toolIndex(callId: string): number | undefined {
    return this.#tools.get(callId);
  }

  /** The current items. The array is never written again: later changes go to a copy. */
  snapshot(): readonly ConversationItem[] {
    this.#shared = true;
    return this.#items;
  }

  #writable(): ConversationItem[] {
    if (this.#shared) {
      this.#items = this.#items.slice();
      this.#shared = false;
    }
    return this.#items;
  }
}

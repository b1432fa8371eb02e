// Bounded LRU set of seen ids: JetStream delivers at least once, so the judge remembers the
// trajectory ids it already published and drops redeliveries; the oldest ids are forgotten first.
import { JudgeError, JudgeErrorCode } from './errors.js';

export class LruSet {
  readonly capacity: number;
  // A Map iterates in insertion order: re-inserting on touch keeps the oldest first.
  readonly #items = new Map<string, true>();

  /** @throws JudgeError JUDGE_INVALID_CONFIG when `capacity` is not a positive integer. */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new JudgeError(JudgeErrorCode.InvalidConfig, `LruSet capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  get size(): number {
    return this.#items.size;
  }

  /** Whether `id` is present; a hit makes it the most recently used. */
  has(id: string): boolean {
    if (!this.#items.has(id)) return false;
    this.#items.delete(id);
    this.#items.set(id, true);
    return true;
  }

  /** Adds `id` as the most recently used, evicting the least recently used beyond capacity. */
  add(id: string): void {
    this.#items.delete(id);
    this.#items.set(id, true);
    while (this.#items.size > this.capacity) {
      const oldest = this.#items.keys().next();
      if (oldest.done) break;
      this.#items.delete(oldest.value);
    }
  }

  delete(id: string): boolean {
    return this.#items.delete(id);
  }
}

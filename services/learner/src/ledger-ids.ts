// The result ids a round ledger has taken in, so that no result counts twice: seen (its payload is
// in the ledger), consumed as excluded, dropped as late. Consumed and late ids are saved with the
// ledger — a result is counted and saved before it is acked, so a crash before the ack brings it
// back after a restart, as a duplicate — and what was added since the last save goes in the next
// delta.
import { parseTrajectoryId } from '@owrl/core';

export class LedgerIds {
  private readonly seen = new Set<string>();
  /** Ids whose results were consumed as excluded. */
  private readonly consumed = new Set<string>();
  /** Ids of results dropped as late. */
  private readonly late = new Set<string>();
  private consumedSinceSave: string[] = [];
  private lateSinceSave: string[] = [];

  /** From a saved ledger: its consumed and late ids (nothing is new since that save). */
  constructor(saved: { consumed?: readonly string[]; late?: readonly string[] } = {}) {
    for (const id of saved.consumed ?? []) this.consumed.add(id);
    for (const id of saved.late ?? []) this.late.add(id);
  }

  /** Whether a result of `id` was taken in already, whatever became of it. */
  has(id: string): boolean {
    return this.seen.has(id) || this.consumed.has(id) || this.late.has(id);
  }

  see(id: string): void {
    this.seen.add(id);
  }

  consume(id: string): void {
    this.consumed.add(id);
    this.consumedSinceSave.push(id);
  }

  dropLate(id: string): void {
    this.late.add(id);
    this.lateSinceSave.push(id);
  }

  lateIds(): string[] {
    return [...this.late];
  }

  /**
   * Async mode, at an update: the seen and consumed ids of the groups `next` carries (round and
   * group of an id, as `carried` says), so a redelivery of one stays a duplicate there.
   */
  carryInto(next: LedgerIds, carried: (round: number, group: number) => boolean): void {
    const keep = (id: string): boolean => {
      try {
        const k = parseTrajectoryId(id);
        return carried(k.round, k.group);
      } catch {
        return false;
      }
    };
    for (const id of this.consumed) if (keep(id)) next.consumed.add(id);
    for (const id of this.seen) if (keep(id)) next.seen.add(id);
  }

  /** The ids consumed and dropped as late since the last save, for a delta; the next one starts here. */
  takeSinceSave(): { consumed: string[]; late?: string[] } {
    const d = { consumed: this.consumedSinceSave, ...(this.lateSinceSave.length > 0 ? { late: this.lateSinceSave } : {}) };
    this.markSaved();
    return d;
  }

  /** Everything was saved whole. */
  markSaved(): void {
    this.consumedSinceSave = [];
    this.lateSinceSave = [];
  }

  toJSON(): { consumed: string[]; late: string[] } {
    return { consumed: [...this.consumed], late: [...this.late] };
  }
}

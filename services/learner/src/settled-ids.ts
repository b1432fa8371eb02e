// Ids of results the learner has settled: acked at a round end, or dropped as late (acked at
// once). An ack a crash lost brings its result back after the ack wait, possibly after the next
// round has ended (a short round, a long ack wait) or after the last one, so a round end's ids
// are kept for that round end and the next, and checkpointed; a redelivery of one is a duplicate.
export class SettledIds {
  private ids = new Set<string>();
  /** What the last round end settled (kept until the round end after it). */
  private last: readonly string[] = [];

  /** From a checkpoint: every id it holds is kept one round end more. */
  constructor(restored: readonly string[] = []) {
    this.ids = new Set(restored);
    this.last = [...restored];
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** A round end settled `ids`: the ids to checkpoint from now on (these and the last round end's). */
  roundEnd(ids: readonly string[]): string[] {
    this.ids = new Set([...ids, ...this.last]);
    this.last = [...ids];
    return [...this.ids];
  }

  toJSON(): string[] {
    return [...this.ids];
  }
}

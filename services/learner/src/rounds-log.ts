// The run's round summaries as an append-only log (rounds.jsonl beside checkpoint.json, one
// RoundSummary as JSON per line), so a checkpoint costs the same at round 500 as at round 5: each
// save appends the rounds finished since the last one and never rewrites what is there. The log
// is read back whole only at a resume. A crash can leave a torn last line (dropped) or rounds the
// checkpoint never committed (a crash between the append and checkpoint.json's rename): `read`
// keeps only rounds below the checkpoint's next round, the last line of a round winning, and
// rewrites the file once when it had to drop anything.
import fs from 'node:fs';
import { fromJson, RoundSummarySchema, toJson, type RoundSummary } from '@owrl/proto';
import { writeAtomic } from './atomic-file.js';
import { CheckpointError, FatalRunCode } from './errors.js';

const jsonLines = (rounds: readonly RoundSummary[]): string => rounds.map((r) => JSON.stringify(toJson(RoundSummarySchema, r)) + '\n').join('');

export class RoundsLog {
  /** Highest round number in the file; null until the file was read or started afresh. */
  private last: number | null = null;

  constructor(readonly file: string) {}

  /** Empties the log (a run that did not resume starts its history anew). */
  reset(): void {
    writeAtomic(this.file, '');
    this.last = -1;
  }

  /**
   * Appends the summaries of `rounds` above the last logged round, in round order; starts a fresh
   * log first when this process has neither read nor reset it.
   */
  append(rounds: readonly RoundSummary[]): number {
    if (this.last === null) this.reset();
    const after = this.last ?? -1;
    const fresh = rounds.filter((r) => Number(r.round) > after).sort((a, b) => Number(a.round - b.round));
    if (fresh.length === 0) return 0;
    fs.appendFileSync(this.file, jsonLines(fresh));
    this.last = Number(fresh[fresh.length - 1]?.round);
    return fresh.length;
  }

  /**
   * The logged summaries of rounds below `nextRound`, in round order.
   * @throws CheckpointError CHECKPOINT_CORRUPT naming the file and line when a line other than the last is not a round summary.
   */
  read(nextRound: number): RoundSummary[] {
    const text = fs.existsSync(this.file) ? fs.readFileSync(this.file, 'utf8') : '';
    const lines = text.split('\n');
    const byRound = new Map<number, RoundSummary>();
    let dropped = false;
    for (const [i, line] of lines.entries()) {
      if (line.trim() === '') continue;
      let r: RoundSummary;
      try {
        r = fromJson(RoundSummarySchema, JSON.parse(line) as never);
      } catch (e) {
        // Only the last line can be torn (a crash during an append).
        if (i >= lines.length - 2) {
          dropped = true;
          continue;
        }
        throw new CheckpointError(FatalRunCode.CheckpointCorrupt, this.file, `line ${i + 1}`, `${this.file}:${i + 1}: not a round summary: ${(e as Error).message}`, { cause: e });
      }
      const round = Number(r.round);
      if (round >= nextRound || byRound.has(round)) dropped = true;
      if (round < nextRound) byRound.set(round, r);
    }
    const rounds = [...byRound.values()].sort((a, b) => Number(a.round - b.round));
    if (dropped) writeAtomic(this.file, jsonLines(rounds));
    this.last = rounds.length > 0 ? Number(rounds[rounds.length - 1]?.round) : -1;
    return rounds;
  }

  /** Starts the log from `rounds` (a checkpoint written before the log existed held them inline). */
  seed(rounds: readonly RoundSummary[]): void {
    this.reset();
    this.append(rounds);
  }
}

// The round in progress on disk, beside checkpoint.json: round.json holds the round ledger
// (groups, tasks, dispatched ids, what came back) and the round's counters, saved whole; every
// change after that is appended to the journal round.json names (round-<n>.journal, one JSON
// delta per line: the groups touched, the ids consumed, the counters), so a save costs the size
// of the change, not of every group in flight. A full save (a new round, or the journal grown past
// twice the full file) starts a new journal. A torn last line (a crash mid-append) is ignored:
// what it held was not yet acted on (its results unacked, its requests unpublished). round.json
// belongs to checkpoint.json's next round; one of another round is stale and removed.
import fs from 'node:fs';
import path from 'node:path';
import { writeAtomic } from './atomic-file.js';
import { FatalRunCode, FatalRunError } from './errors.js';
import { applyLedgerDelta, type RoundLedgerDelta, type RoundLedgerJson } from './ledger-json.js';
import type { RoundStatsJson } from './round-stats.js';
import { asObject, corrupt, field, parseJson, readObject, under, type Where } from './saved-json.js';

/** The in-progress round as saved in round.json. */
export interface RoundFile {
  ledger: RoundLedgerJson;
  counters: unknown;
  terminations: Record<string, string>;
  excluded: Record<string, string>;
  /** The round's own breakdowns (RoundStats). */
  round?: Partial<RoundStatsJson>;
  /** The journal of changes since this full save (a file beside round.json); absent: none. */
  journal?: string;
}

/** One line of the round journal: what changed since the line before (or the full save). */
export interface RoundFileDelta {
  ledger: RoundLedgerDelta;
  counters: unknown;
  terminations: Record<string, string>;
  excluded: Record<string, string>;
  /** The round's breakdowns (whole) and the groups decided since the line before. */
  round: RoundStatsJson;
}

/** A full save is due once the journal has grown past this many times the full file (and ROUND_JOURNAL_MIN_BYTES). */
const ROUND_JOURNAL_FACTOR = 2;
const ROUND_JOURNAL_MIN_BYTES = 1 << 20;
const JOURNAL_NAME = /^round-\d+\.journal$/;

/** round.json and its journal in `dir`. Writes throw what the file system throws (CheckpointStore makes that the run's fatal error). */
export class RoundFileStore {
  /** The journal the last full save named (null: none written by this process yet), and sizes. */
  private journal: { file: string; fd: number; bytes: number; fullBytes: number } | null = null;
  private journalSeq = 0;

  constructor(private readonly dir: string) {}

  /**
   * Saves the whole round in progress and starts a new, empty journal for its changes (append);
   * earlier journals are removed once round.json no longer names them.
   */
  write(r: RoundFile): void {
    this.closeJournal();
    // Unique within the folder across restarts: the time, then a counter.
    this.journalSeq = Math.max(this.journalSeq + 1, Date.now());
    const journal = `round-${this.journalSeq}.journal`;
    const data = JSON.stringify({ ...r, journal });
    const file = path.join(this.dir, journal);
    const fd = fs.openSync(file, 'w');
    writeAtomic(path.join(this.dir, 'round.json'), data);
    this.journal = { file, fd, bytes: 0, fullBytes: data.length };
    for (const f of fs.readdirSync(this.dir)) if (JOURNAL_NAME.test(f) && f !== journal) fs.rmSync(path.join(this.dir, f), { force: true });
  }

  /**
   * Appends the round's changes since the last save to the journal of the last full save.
   * @throws FatalRunError LEARNER_ERROR when no round was saved whole by this store yet.
   */
  append(d: RoundFileDelta): void {
    const j = this.journal;
    if (!j) throw new FatalRunError(FatalRunCode.LearnerError, 'appendRound before saveRound: the round journal belongs to a full round save');
    const line = `${JSON.stringify(d)}\n`;
    fs.writeSync(j.fd, line);
    j.bytes += line.length;
  }

  /** Whether the journal has grown enough that the next save should be whole (or none was). */
  saveDue(): boolean {
    const j = this.journal;
    return !j || j.bytes > Math.max(ROUND_JOURNAL_MIN_BYTES, ROUND_JOURNAL_FACTOR * j.fullBytes);
  }

  private closeJournal(): void {
    if (this.journal) fs.closeSync(this.journal.fd);
    this.journal = null;
  }

  /**
   * The saved round in progress (round.json with its journal applied) when it is round `round`,
   * else null (a stale file is removed).
   * @throws CheckpointError CHECKPOINT_CORRUPT naming the file and the field of a damaged round.json or journal line.
   */
  load(round: number): RoundFile | null {
    const file = path.join(this.dir, 'round.json');
    if (!fs.existsSync(file)) return null;
    const r = readRoundFile(file);
    if (r.ledger.round !== round) {
      fs.rmSync(file, { force: true });
      if (r.journal !== undefined) fs.rmSync(path.join(this.dir, r.journal), { force: true });
      return null;
    }
    if (r.journal === undefined) return r;
    const journal = path.join(this.dir, r.journal);
    if (!fs.existsSync(journal)) return r;
    return readJournal(journal, r);
  }
}

/** round.json, its fields checked. */
function readRoundFile(file: string): RoundFile {
  const where: Where = { what: 'round file', file };
  const r = readObject(file, where.what);
  field(r, 'ledger', 'object', where);
  field(r['ledger'] as Record<string, unknown>, 'round', 'integer', under(where, 'ledger'));
  field(r, 'counters', 'object', where);
  for (const k of ['terminations', 'excluded']) field(r, k, 'object', where);
  field(r, 'round', 'object', where, true);
  field(r, 'journal', 'string', where, true);
  if (typeof r['journal'] === 'string' && !JOURNAL_NAME.test(r['journal'])) {
    throw corrupt(where, 'journal', `journal must name a round-<n>.journal file beside round.json, got ${JSON.stringify(r['journal'])}`);
  }
  return r as unknown as RoundFile;
}

/** `base` with every line of the journal `file` applied; a torn last line is ignored. */
function readJournal(file: string, base: RoundFile): RoundFile {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let r = base;
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    const where: Where = { what: 'round journal', file, line: i + 1 };
    let parsed: unknown;
    try {
      parsed = parseJson(line, where);
    } catch (e) {
      // Only the last line (no newline after it) can be cut short by a crash mid-append; anything before it is damage.
      if (i === lines.length - 1) break;
      throw e;
    }
    const d = checkDelta(asObject(parsed, where), where);
    let ledger;
    try {
      ledger = applyLedgerDelta(r.ledger, d.ledger);
    } catch (e) {
      throw corrupt(where, 'ledger.groups', (e as Error).message, e);
    }
    r = {
      ...r,
      ledger,
      counters: d.counters,
      terminations: d.terminations,
      excluded: d.excluded,
      round: { ...d.round, decided: [...(r.round?.decided ?? []), ...d.round.decided] },
    };
  }
  return r;
}

/** A journal line's fields, checked. */
function checkDelta(d: Record<string, unknown>, where: Where): RoundFileDelta {
  field(d, 'ledger', 'object', where);
  for (const k of ['counters', 'terminations', 'excluded', 'round']) field(d, k, 'object', where);
  const l = d['ledger'] as Record<string, unknown>;
  field(l, 'nextGroup', 'integer', under(where, 'ledger'));
  for (const k of ['consumed', 'groups']) field(l, k, 'array', under(where, 'ledger'));
  field(d['round'] as Record<string, unknown>, 'decided', 'array', under(where, 'round'));
  return d as unknown as RoundFileDelta;
}

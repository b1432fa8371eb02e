// Checkpoints of the learner, written atomically (temp file + rename) so a killed learner resumes
// where it was:
// - checkpoint.json (+ weights/adam files) at the end of each round, BEFORE the new policy is
//   published: policy weights, optimizer, counters, scheduler state and RNG, host-failure
//   windows, curriculum stage, the learner's RNG and the ids the round consumed (their acks may
//   not have landed before a crash). Its size does not grow with the run: the round summaries go
//   to rounds.jsonl (rounds-log.ts), appended before checkpoint.json is replaced and read back
//   whole only at a resume;
// - round.json while a round runs: the round ledger (groups, tasks, dispatched ids, what came
//   back) and the round's counters. It belongs to checkpoint.json's next round; one of another
//   round is stale and ignored. Every change after a full save is appended to the journal that
//   round.json names (round-<n>.journal, one JSON delta per line: the groups touched, the ids
//   consumed, the counters), so a save costs the size of the change, not of every group in
//   flight; a full save (a new round, or the journal grown past twice the full file) starts a
//   new journal. A torn last line (a crash mid-append) is ignored: what it held was not yet acted
//   on (its results unacked, its requests unpublished).
// - incarnation: the learner's start count, bumped at each start.
import fs from 'node:fs';
import path from 'node:path';
import { fromJson, RunCountersSchema, RoundSummarySchema, toJson, type RoundSummary, type RunCounters } from '@owrl/proto';
import type { PointerModel } from '@owrl/policy';
import { Adam } from '@owrl/rl';
import { writeAtomic } from './atomic-file.js';
import { FatalRunError } from './failure-policy.js';
import { RoundsLog } from './rounds-log.js';
import { applyLedgerDelta, type RoundLedgerDelta, type RoundLedgerJson } from './round-ledger.js';
import type { RoundStatsJson } from './round-stats.js';
import type { SchedulerState } from './scheduler.js';

/** State of the loop that is not weights or optimizer. */
export interface LoopState {
  scheduler: SchedulerState;
  /** State of the learner's own RNG (rollout seeds). */
  rng: number;
  hostWindows: Record<string, Array<{ atMs: number; cause: string }>>;
  curriculumStage: number;
  /** Ids the last round consumed: a redelivery of one after a crash is a duplicate, never counted again. */
  settledIds: string[];
  terminations: Record<string, string>;
  excluded: Record<string, string>;
  /**
   * Async mode: the next round's ledger as the update left it (the groups still in flight, carried
   * over). round.json supersedes it once the next round has saved itself.
   */
  carry?: RoundLedgerJson;
  /** Async mode: run-wide staleness of trained trajectories (count per lag) and drops. */
  staleness?: { counts: number[]; dropped: number };
  /**
   * Async mode: an update written ahead whose training these weights do not hold yet (it trains
   * while the next round goes on). A restart trains its written-ahead request again.
   */
  pendingUpdate?: PendingUpdateJson;
}

/** An update checkpointed as written ahead and not yet trained: its round, the version it makes, the round's summary (protobuf JSON). */
export interface PendingUpdateJson {
  round: number;
  target: number;
  summary: unknown;
}

export interface CheckpointData {
  nextRound: number;
  policyVersion: number;
  model: PointerModel;
  optimizer: Adam;
  counters: RunCounters;
  /** Summaries of finished rounds; those not logged yet are appended to rounds.jsonl (older ones may be left out). */
  rounds: readonly RoundSummary[];
  loop: LoopState;
}

export interface RestoredCheckpoint {
  weights: Float32Array;
  temperature: number;
  optimizer: Adam;
  nextRound: number;
  policyVersion: number;
  counters: RunCounters;
  /** Every finished round's summary, from rounds.jsonl. */
  rounds: RoundSummary[];
  /** Absent in checkpoints written before it existed. */
  loop: LoopState | null;
}

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

interface Manifest {
  format: 1;
  nextRound: number;
  policyVersion: number;
  dim: number;
  temperature: number;
  optimizerFile: string;
  counters: unknown;
  /** Round summaries inline: only in checkpoints written before rounds.jsonl existed. */
  rounds?: unknown[];
  /** The round summaries' log, beside the manifest. */
  roundsLog?: string;
  loop?: LoopState;
  savedAtMs: number;
}

/** The round summaries' log in the checkpoint folder. */
export const ROUNDS_LOG = 'rounds.jsonl';

export class CheckpointStore {
  private readonly roundsLog: RoundsLog;
  /** The journal the last full round save named (null: none written by this process yet), and sizes. */
  private journal: { file: string; fd: number; bytes: number; fullBytes: number } | null = null;
  private journalSeq = 0;

  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.roundsLog = new RoundsLog(path.join(dir, ROUNDS_LOG));
  }

  /** Reads, bumps and persists the learner's start count; returns the new one (1 at the first start). */
  nextIncarnation(): number {
    const file = path.join(this.dir, 'incarnation');
    let prev = 0;
    if (fs.existsSync(file)) {
      prev = Number(fs.readFileSync(file, 'utf8').trim());
      if (!Number.isInteger(prev) || prev < 0) throw new Error(`${file}: ${JSON.stringify(fs.readFileSync(file, 'utf8'))} is not a start count`);
    }
    writeAtomic(file, String(prev + 1));
    return prev + 1;
  }

  /**
   * Checkpoints the run (weights, optimizer, rounds, loop state).
   * @throws FatalRunError CHECKPOINT_FAILED naming the folder when it cannot be written.
   */
  save(c: CheckpointData): void {
    this.guard('saving the checkpoint', () => this.write(c));
  }

  /**
   * `op`, its failure to write the folder turned into the run's fatal error (a learner that cannot
   * checkpoint cannot promise anything it trains from here on).
   */
  private guard(what: string, op: () => void): void {
    try {
      op();
    } catch (e) {
      throw new FatalRunError('CHECKPOINT_FAILED', `${what} in ${this.dir} failed: ${(e as Error).message}`, { cause: e });
    }
  }

  private write(c: CheckpointData): void {
    // Named by round and version: an async round is checkpointed twice (its update written ahead,
    // then trained), and a rename over the file the current manifest names would change the
    // weights a crash in between resumes from.
    const weightsFile = path.join(this.dir, `weights-r${c.nextRound}-v${c.policyVersion}.bin`);
    const optimizerFile = path.join(this.dir, `adam-r${c.nextRound}-v${c.policyVersion}.bin`);
    const w = c.model.weights;
    // First the rounds (a crash before the manifest's rename leaves extra lines, dropped at load).
    this.roundsLog.append(c.rounds);
    writeAtomic(weightsFile, new Uint8Array(w.buffer, w.byteOffset, w.byteLength));
    writeAtomic(optimizerFile, c.optimizer.toBytes());
    const manifest: Manifest = {
      format: 1,
      nextRound: c.nextRound,
      policyVersion: c.policyVersion,
      dim: c.model.dim,
      temperature: c.model.temperature,
      optimizerFile: path.basename(optimizerFile),
      counters: toJson(RunCountersSchema, c.counters),
      roundsLog: ROUNDS_LOG,
      loop: c.loop,
      savedAtMs: Date.now(),
    };
    writeAtomic(path.join(this.dir, 'checkpoint.json'), JSON.stringify({ ...manifest, weightsFile: path.basename(weightsFile) }));
    const keep = new Set([path.basename(weightsFile), path.basename(optimizerFile)]);
    for (const f of fs.readdirSync(this.dir)) {
      if (/^(weights|adam)-r\d+(-v\d+)?\.bin$/.test(f) && !keep.has(f)) fs.rmSync(path.join(this.dir, f), { force: true });
    }
  }

  /** The last checkpoint of this run, or null when there is none. */
  load(dim: number): RestoredCheckpoint | null {
    const file = path.join(this.dir, 'checkpoint.json');
    if (!fs.existsSync(file)) {
      this.roundsLog.reset();
      return null;
    }
    const m = readManifest(file);
    if (m.dim !== dim) throw new Error(`checkpoint ${file}: feature dimension ${m.dim} differs from the model's ${dim}`);
    const buf = fs.readFileSync(path.join(this.dir, m.weightsFile));
    const weights = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    if (weights.length !== dim) throw new Error(`checkpoint ${file}: ${m.weightsFile} holds ${weights.length} weights, expected ${dim}`);
    return {
      weights,
      temperature: m.temperature,
      optimizer: Adam.fromBytes(new Uint8Array(fs.readFileSync(path.join(this.dir, m.optimizerFile)))),
      nextRound: m.nextRound,
      policyVersion: m.policyVersion,
      counters: fromJson(RunCountersSchema, m.counters as never),
      rounds: this.loadRounds(m),
      loop: m.loop ?? null,
    };
  }

  private loadRounds(m: Manifest): RoundSummary[] {
    if (m.roundsLog === undefined) {
      // A checkpoint from before the log: its inline rounds start the log.
      const inline = (m.rounds ?? []).map((r) => fromJson(RoundSummarySchema, r as never));
      this.roundsLog.seed(inline.filter((r) => Number(r.round) < m.nextRound));
    }
    return this.roundsLog.read(m.nextRound);
  }

  /**
   * Saves the whole round in progress and starts a new, empty journal for its changes
   * (appendRound); earlier journals are removed once round.json no longer names them.
   */
  saveRound(r: RoundFile): void {
    this.guard('saving the round in progress', () => this.writeRound(r));
  }

  private writeRound(r: RoundFile): void {
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
   * Appends the round's changes since the last save to the journal of the last saveRound.
   * @throws Error when no round was saved whole by this store yet.
   */
  appendRound(d: RoundFileDelta): void {
    const j = this.journal;
    if (!j) throw new Error('appendRound before saveRound: the round journal belongs to a full round save');
    const line = `${JSON.stringify(d)}\n`;
    this.guard('appending to the round journal', () => fs.writeSync(j.fd, line));
    j.bytes += line.length;
  }

  /** Whether the journal has grown enough that the next save should be whole (or none was). */
  roundSaveDue(): boolean {
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
   */
  loadRound(round: number): RoundFile | null {
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

/** `base` with every line of the journal `file` applied; a torn last line is ignored. */
function readJournal(file: string, base: RoundFile): RoundFile {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  let r = base;
  for (const [i, line] of lines.entries()) {
    if (line === '') continue;
    let d: RoundFileDelta;
    try {
      d = JSON.parse(line) as RoundFileDelta;
    } catch (e) {
      // Only the last line (no newline after it) can be cut short by a crash mid-append; anything before it is damage.
      if (i === lines.length - 1) break;
      throw new Error(`round journal ${file}: line ${i + 1} is not valid JSON (${(e as Error).message})`, { cause: e });
    }
    const where = `round journal ${file}: line ${i + 1}`;
    if (typeof d !== 'object' || d === null || Array.isArray(d)) throw new Error(`${where}: expected a JSON object`);
    field(d as unknown as Record<string, unknown>, 'ledger', 'object', where);
    for (const k of ['counters', 'terminations', 'excluded', 'round']) field(d as unknown as Record<string, unknown>, k, 'object', where);
    const l = d.ledger as unknown as Record<string, unknown>;
    field(l, 'nextGroup', 'integer', `${where}: ledger`);
    for (const k of ['consumed', 'groups']) field(l, k, 'array', `${where}: ledger`);
    field(d.round as unknown as Record<string, unknown>, 'decided', 'array', `${where}: round`);
    let ledger;
    try {
      ledger = applyLedgerDelta(r.ledger, d.ledger);
    } catch (e) {
      throw new Error(`${where}: ${(e as Error).message}`, { cause: e });
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

/** A JSON file's top-level object, or an error naming the file. */
function readObject(file: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${what} ${file}: not valid JSON (${(e as Error).message})`, { cause: e });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error(`${what} ${file}: expected a JSON object`);
  return v as Record<string, unknown>;
}

function field(o: Record<string, unknown>, key: string, kind: 'integer' | 'number' | 'string' | 'object' | 'array', where: string, optional = false): void {
  const v = o[key];
  if (v === undefined && optional) return;
  const ok =
    kind === 'integer' ? Number.isSafeInteger(v) && (v as number) >= 0
    : kind === 'number' ? typeof v === 'number' && Number.isFinite(v)
    : kind === 'string' ? typeof v === 'string' && v !== ''
    : kind === 'array' ? Array.isArray(v)
    : typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!ok) throw new Error(`${where}: field ${key} must be ${kind === 'integer' ? 'a non-negative integer' : `a${kind === 'object' || kind === 'array' ? 'n' : ''} ${kind}`}, got ${JSON.stringify(v) ?? 'nothing'}`);
}

/** checkpoint.json, its fields checked before any is used (a damaged or foreign file is an error naming the field). */
function readManifest(file: string): Manifest & { weightsFile: string } {
  const where = `checkpoint ${file}`;
  const m = readObject(file, 'checkpoint');
  if (m['format'] !== 1) throw new Error(`${where}: unknown format ${JSON.stringify(m['format'])}`);
  for (const k of ['nextRound', 'policyVersion', 'dim']) field(m, k, 'integer', where);
  field(m, 'temperature', 'number', where);
  for (const k of ['weightsFile', 'optimizerFile']) field(m, k, 'string', where);
  for (const k of ['weightsFile', 'optimizerFile', 'roundsLog']) {
    if (typeof m[k] === 'string' && path.basename(m[k]) !== m[k]) throw new Error(`${where}: ${k} must name a file beside the manifest, got ${JSON.stringify(m[k])}`);
  }
  field(m, 'counters', 'object', where);
  field(m, 'roundsLog', 'string', where, true);
  field(m, 'rounds', 'array', where, true);
  field(m, 'loop', 'object', where, true);
  if (m['loop'] !== undefined) {
    const loop = m['loop'] as Record<string, unknown>;
    const at = `${where}: loop`;
    for (const k of ['scheduler', 'hostWindows', 'terminations', 'excluded']) field(loop, k, 'object', at);
    field(loop, 'rng', 'number', at);
    field(loop, 'curriculumStage', 'integer', at);
    field(loop, 'settledIds', 'array', at);
    field(loop, 'pendingUpdate', 'object', at, true);
    if (loop['pendingUpdate'] !== undefined) {
      const pu = loop['pendingUpdate'] as Record<string, unknown>;
      for (const k of ['round', 'target']) field(pu, k, 'integer', `${at}.pendingUpdate`);
      field(pu, 'summary', 'object', `${at}.pendingUpdate`);
    }
  }
  return m as unknown as Manifest & { weightsFile: string };
}

/** round.json, its fields checked. */
function readRoundFile(file: string): RoundFile {
  const where = `round file ${file}`;
  const r = readObject(file, 'round file');
  field(r, 'ledger', 'object', where);
  field(r['ledger'] as Record<string, unknown>, 'round', 'integer', `${where}: ledger`);
  field(r, 'counters', 'object', where);
  for (const k of ['terminations', 'excluded']) field(r, k, 'object', where);
  field(r, 'round', 'object', where, true);
  field(r, 'journal', 'string', where, true);
  if (typeof r['journal'] === 'string' && !JOURNAL_NAME.test(r['journal'])) throw new Error(`${where}: journal must name a round-<n>.journal file beside round.json, got ${JSON.stringify(r['journal'])}`);
  return r as unknown as RoundFile;
}

/** RunCounters from a round file. */
export function countersFromJson(j: unknown): RunCounters {
  return fromJson(RunCountersSchema, j as never);
}

export function countersToJson(c: RunCounters): unknown {
  return toJson(RunCountersSchema, c);
}

/** bigint maps of RunState (terminations, excluded) to and from JSON strings. */
export function bigMapToJson(m: Record<string, bigint>): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.toString()]));
}

export function bigMapFromJson(m: Record<string, string> | undefined): Record<string, bigint> {
  return Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [k, BigInt(v)]));
}

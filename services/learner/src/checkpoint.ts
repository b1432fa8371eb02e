// Checkpoints of the learner, written atomically (temp file + rename) so a killed learner resumes
// where it was:
// - checkpoint.json (+ weights/adam files) at the end of each round, BEFORE the new policy is
//   published: policy weights, optimizer, counters, scheduler state and RNG, host-failure
//   windows, curriculum stage, the learner's RNG and the ids the round consumed (their acks may
//   not have landed before a crash). Its size does not grow with the run: the round summaries go
//   to rounds.jsonl (rounds-log.ts), appended before checkpoint.json is replaced and read back
//   whole only at a resume;
// - round.json and its journal while a round runs (round-file.ts);
// - incarnation: the learner's start count, bumped at each start.
// What is read back is checked first: a damaged file is a CheckpointError naming the file and the
// field (saved-json.ts), never a value used as cast.
import fs from 'node:fs';
import path from 'node:path';
import { fromJson, RunCountersSchema, RoundSummarySchema, toJson, type RoundSummary, type RunCounters } from '@owrl/proto';
import type { PointerModel } from '@owrl/policy';
import { Adam } from '@owrl/rl';
import { writeAtomic } from './atomic-file.js';
import { CheckpointError, FatalRunCode, FatalRunError, isFatalRunError } from './errors.js';
import type { RoundLedgerJson } from './ledger-json.js';
import { RoundFileStore, type RoundFile, type RoundFileDelta } from './round-file.js';
import { RoundsLog } from './rounds-log.js';
import { corrupt, field, readObject, under, type Where } from './saved-json.js';
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
  private readonly roundFile: RoundFileStore;

  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
    this.roundsLog = new RoundsLog(path.join(dir, ROUNDS_LOG));
    this.roundFile = new RoundFileStore(dir);
  }

  /**
   * Reads, bumps and persists the learner's start count; returns the new one (1 at the first start).
   * @throws CheckpointError CHECKPOINT_CORRUPT when the file holds no start count.
   */
  nextIncarnation(): number {
    const file = path.join(this.dir, 'incarnation');
    let prev = 0;
    if (fs.existsSync(file)) {
      const text = fs.readFileSync(file, 'utf8');
      prev = Number(text.trim());
      if (!Number.isInteger(prev) || prev < 0) throw new CheckpointError(FatalRunCode.CheckpointCorrupt, file, 'start count', `${file}: ${JSON.stringify(text)} is not a start count`);
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
      if (isFatalRunError(e)) throw e;
      throw new FatalRunError(FatalRunCode.CheckpointFailed, `${what} in ${this.dir} failed: ${(e as Error).message}`, { cause: e });
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

  /**
   * The last checkpoint of this run, or null when there is none.
   * @throws CheckpointError CHECKPOINT_CORRUPT naming the file and the field of a damaged
   *   checkpoint (checkpoint.json, the weights or optimizer file it names, rounds.jsonl);
   *   CHECKPOINT_MISMATCH when it was made for a model of another feature dimension than `dim`.
   */
  load(dim: number): RestoredCheckpoint | null {
    const file = path.join(this.dir, 'checkpoint.json');
    if (!fs.existsSync(file)) {
      this.roundsLog.reset();
      return null;
    }
    const where: Where = { what: 'checkpoint', file };
    const m = readManifest(where);
    if (m.dim !== dim) throw new CheckpointError(FatalRunCode.CheckpointMismatch, file, 'dim', `checkpoint ${file}: feature dimension ${m.dim} differs from the model's ${dim}`);
    const weights = this.readWeights(m, dim, where);
    return {
      weights,
      temperature: m.temperature,
      optimizer: this.readBeside(m, 'optimizerFile', where, (bytes) => Adam.fromBytes(bytes)),
      nextRound: m.nextRound,
      policyVersion: m.policyVersion,
      counters: parsed(where, 'counters', () => fromJson(RunCountersSchema, m.counters as never)),
      rounds: this.loadRounds(m, where),
      loop: m.loop ?? null,
    };
  }

  private readWeights(m: Manifest & { weightsFile: string }, dim: number, where: Where): Float32Array {
    return this.readBeside(m, 'weightsFile', where, (buf) => {
      // A file cut short need not end on a whole weight.
      if (buf.byteLength !== dim * Float32Array.BYTES_PER_ELEMENT) {
        const held = buf.byteLength % Float32Array.BYTES_PER_ELEMENT === 0 ? `${buf.byteLength / Float32Array.BYTES_PER_ELEMENT} weights` : `${buf.byteLength} bytes`;
        throw corrupt(where, 'weightsFile', `${m.weightsFile} holds ${held}, expected ${dim}`);
      }
      return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    });
  }

  /** The file beside the manifest that field `key` names, read and decoded; any failure names that field. */
  private readBeside<T>(m: Manifest & { weightsFile: string }, key: 'weightsFile' | 'optimizerFile', where: Where, decode: (bytes: Uint8Array) => T): T {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(fs.readFileSync(path.join(this.dir, m[key])));
    } catch (e) {
      throw corrupt(where, key, `${m[key]} cannot be read: ${(e as Error).message}`, e);
    }
    return parsed(where, key, () => decode(bytes), m[key]);
  }

  private loadRounds(m: Manifest, where: Where): RoundSummary[] {
    if (m.roundsLog === undefined) {
      // A checkpoint from before the log: its inline rounds start the log.
      const inline = (m.rounds ?? []).map((r, i) => parsed(under(where, 'rounds'), `[${i}]`, () => fromJson(RoundSummarySchema, r as never)));
      this.roundsLog.seed(inline.filter((r) => Number(r.round) < m.nextRound));
    }
    return this.roundsLog.read(m.nextRound);
  }

  /**
   * Saves the whole round in progress and starts a new, empty journal for its changes
   * (appendRound); earlier journals are removed once round.json no longer names them.
   * @throws FatalRunError CHECKPOINT_FAILED naming the folder when it cannot be written.
   */
  saveRound(r: RoundFile): void {
    this.guard('saving the round in progress', () => this.roundFile.write(r));
  }

  /**
   * Appends the round's changes since the last save to the journal of the last saveRound.
   * @throws FatalRunError LEARNER_ERROR when no round was saved whole by this store yet,
   *   CHECKPOINT_FAILED when the journal cannot be written.
   */
  appendRound(d: RoundFileDelta): void {
    this.guard('appending to the round journal', () => this.roundFile.append(d));
  }

  /** Whether the journal has grown enough that the next save should be whole (or none was). */
  roundSaveDue(): boolean {
    return this.roundFile.saveDue();
  }

  /**
   * The saved round in progress (round.json with its journal applied) when it is round `round`,
   * else null (a stale file is removed).
   * @throws CheckpointError CHECKPOINT_CORRUPT naming the file and the field of a damaged one.
   */
  loadRound(round: number): RoundFile | null {
    return this.roundFile.load(round);
  }
}

/** `decode()`, a failure of it naming field `key` of `where` (and `what` it decoded, when that is a file of its own). */
function parsed<T>(where: Where, key: string, decode: () => T, what?: string): T {
  try {
    return decode();
  } catch (e) {
    if (e instanceof CheckpointError) throw e;
    throw corrupt(where, key, `${what ?? `field ${key}`} cannot be decoded: ${(e as Error).message}`, e);
  }
}

/** checkpoint.json, its fields checked before any is used (a damaged or foreign file is an error naming the field). */
function readManifest(where: Where): Manifest & { weightsFile: string } {
  const m = readObject(where.file, where.what);
  if (m['format'] !== 1) throw corrupt(where, 'format', `unknown format ${JSON.stringify(m['format'])}`);
  for (const k of ['nextRound', 'policyVersion', 'dim']) field(m, k, 'integer', where);
  field(m, 'temperature', 'number', where);
  for (const k of ['weightsFile', 'optimizerFile']) field(m, k, 'string', where);
  for (const k of ['weightsFile', 'optimizerFile', 'roundsLog']) {
    if (typeof m[k] === 'string' && path.basename(m[k]) !== m[k]) throw corrupt(where, k, `${k} must name a file beside the manifest, got ${JSON.stringify(m[k])}`);
  }
  field(m, 'counters', 'object', where);
  field(m, 'roundsLog', 'string', where, true);
  field(m, 'rounds', 'array', where, true);
  field(m, 'loop', 'object', where, true);
  if (m['loop'] !== undefined) checkLoop(m['loop'] as Record<string, unknown>, under(where, 'loop'));
  return m as unknown as Manifest & { weightsFile: string };
}

/** The manifest's loop state, its fields checked. */
function checkLoop(loop: Record<string, unknown>, at: Where): void {
  for (const k of ['scheduler', 'hostWindows', 'terminations', 'excluded']) field(loop, k, 'object', at);
  field(loop, 'rng', 'number', at);
  field(loop, 'curriculumStage', 'integer', at);
  field(loop, 'settledIds', 'array', at);
  field(loop, 'pendingUpdate', 'object', at, true);
  if (loop['pendingUpdate'] !== undefined) {
    const pu = loop['pendingUpdate'] as Record<string, unknown>;
    for (const k of ['round', 'target']) field(pu, k, 'integer', under(at, 'pendingUpdate'));
    field(pu, 'summary', 'object', under(at, 'pendingUpdate'));
    parsed(under(at, 'pendingUpdate'), 'summary', () => fromJson(RoundSummarySchema, pu['summary'] as never));
  }
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

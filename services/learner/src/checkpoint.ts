// Checkpoints of the learner, written atomically (temp file + rename) so a killed learner resumes
// where it was:
// - checkpoint.json (+ weights/adam files) at the end of each round, BEFORE the new policy is
//   published: policy weights, optimizer, counters, scheduler state and RNG, host-failure
//   windows, curriculum stage, the learner's RNG and the ids the round consumed (their acks may
//   not have landed before a crash). Its size does not grow with the run: the round summaries go
//   to rounds.jsonl (rounds-log.ts), appended before checkpoint.json is replaced and read back
//   whole only at a resume;
// - round.json while a round runs: the round ledger (groups, tasks, dispatched ids, what came
//   back) and the round's counters, rewritten on every change. It belongs to checkpoint.json's
//   next round; one of another round is stale and ignored.
// - incarnation: the learner's start count, bumped at each start.
import fs from 'node:fs';
import path from 'node:path';
import { fromJson, RunCountersSchema, RoundSummarySchema, toJson, type RoundSummary, type RunCounters } from '@owrl/proto';
import type { PointerModel } from '@owrl/policy';
import { Adam } from '@owrl/rl';
import { writeAtomic } from './atomic-file.js';
import { RoundsLog } from './rounds-log.js';
import type { RoundLedgerJson } from './round-ledger.js';
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
  round?: { terminations?: Record<string, number>; excluded?: Record<string, number>; decided?: string[] };
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

  save(c: CheckpointData): void {
    const weightsFile = path.join(this.dir, `weights-r${c.nextRound}.bin`);
    const optimizerFile = path.join(this.dir, `adam-r${c.nextRound}.bin`);
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
      if (/^(weights|adam)-r\d+\.bin$/.test(f) && !keep.has(f)) fs.rmSync(path.join(this.dir, f), { force: true });
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

  /** Saves the round in progress (called on every change of its ledger). */
  saveRound(r: RoundFile): void {
    writeAtomic(path.join(this.dir, 'round.json'), JSON.stringify(r));
  }

  /** The saved round in progress when it is round `round`, else null (a stale file is removed). */
  loadRound(round: number): RoundFile | null {
    const file = path.join(this.dir, 'round.json');
    if (!fs.existsSync(file)) return null;
    const r = readRoundFile(file);
    if (r.ledger.round !== round) {
      fs.rmSync(file, { force: true });
      return null;
    }
    return r;
  }
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

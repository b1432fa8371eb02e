// Checkpoints of the learner: policy weights, optimizer state, counters and round summaries,
// written atomically (temp file + rename) so a killed learner resumes from the last good round.
import fs from 'node:fs';
import path from 'node:path';
import { fromJson, RunCountersSchema, RoundSummarySchema, toJson, type RoundSummary, type RunCounters } from '@owrl/proto';
import type { PointerModel } from '@owrl/policy';
import { Adam } from '@owrl/rl';

export interface CheckpointData {
  nextRound: number;
  policyVersion: number;
  model: PointerModel;
  optimizer: Adam;
  counters: RunCounters;
  rounds: RoundSummary[];
}

export interface RestoredCheckpoint {
  weights: Float32Array;
  temperature: number;
  optimizer: Adam;
  nextRound: number;
  policyVersion: number;
  counters: RunCounters;
  rounds: RoundSummary[];
}

interface Manifest {
  format: 1;
  nextRound: number;
  policyVersion: number;
  dim: number;
  temperature: number;
  optimizerFile: string;
  counters: unknown;
  rounds: unknown[];
  savedAtMs: number;
}

function writeAtomic(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}

export class CheckpointStore {
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  save(c: CheckpointData): void {
    const weightsFile = path.join(this.dir, `weights-r${c.nextRound}.bin`);
    const optimizerFile = path.join(this.dir, `adam-r${c.nextRound}.bin`);
    const w = c.model.weights;
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
      rounds: c.rounds.map((r) => toJson(RoundSummarySchema, r)),
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
    if (!fs.existsSync(file)) return null;
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest & { weightsFile: string };
    if (m.format !== 1) throw new Error(`checkpoint ${file}: unknown format ${String(m.format)}`);
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
      rounds: m.rounds.map((r) => fromJson(RoundSummarySchema, r as never)),
    };
  }
}

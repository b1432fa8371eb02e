// The in-process update off the caller's thread: the learner's loop keeps ingesting results,
// dispatching rollouts and answering gRPC while an update trains. A worker thread receives a copy
// of the model's weights and the optimizer's state with the update's TrainGroups, runs the same
// GrpoTrainer step (same options, same float math, so the weights are bit-for-bit those of an
// update on the caller's thread), exports the ONNX artifact, and hands the new weights and
// optimizer state back; they are written into the caller's model and optimizer in place, so what
// the learner checkpoints afterwards is the trained state. Nothing else may change the model or
// the optimizer while an update is out (the learner only reads them at its checkpoint).
import { Worker } from 'node:worker_threads';
import { pendingTraceBytes, type TrainGroup, type TrainHeader } from '@owrl/proto';
import type { EpochStats, GrpoTrainer } from '@owrl/rl';
import { TrainerError, type TrainerErrorCode } from '@owrl/trainer-rpc';

/**
 * Groups as posted to the worker: a step whose trace is still encoded (the learner's
 * decodeScoredLazy) goes as `traceBytes`, a view of one buffer of all such traces that is
 * transferred, not copied again; the worker decodes and checks them (fromWire).
 */
export interface WireGroups {
  groups: readonly TrainGroup[];
  traces: ArrayBuffer | null;
}

/** `groups` with their still-encoded traces as bytes (see WireGroups); the groups themselves are not changed. */
export function toWire(groups: readonly TrainGroup[]): WireGroups {
  let total = 0;
  for (const g of groups) for (const s of g.samples) for (const st of s.steps) total += pendingTraceBytes(st)?.length ?? 0;
  if (total === 0) return { groups, traces: null };
  const buf = new Uint8Array(total);
  let at = 0;
  const out = groups.map((g) => ({
    ...g,
    samples: g.samples.map((s) => ({
      ...s,
      steps: s.steps.map((st) => {
        const bytes = pendingTraceBytes(st);
        if (!bytes) return st;
        buf.set(bytes, at);
        const view = buf.subarray(at, at + bytes.length);
        at += bytes.length;
        // Not `...st`: that would read (decode) the trace.
        return { $typeName: st.$typeName, index: st.index, traceBytes: view } as unknown as typeof st;
      }),
    })),
  }));
  return { groups: out, traces: buf.buffer };
}

/** The state and rule of one update (update-worker.ts). */
export interface UpdateJob {
  op: 'train';
  id: number;
  dim: number;
  temperature: number;
  weights: Float32Array;
  adam: { lr: number; beta1: number; beta2: number; eps: number; maxGradNorm?: number; steps: number; m: Float64Array; v: Float64Array; counts: Uint32Array };
  rule: Pick<GrpoTrainer, 'epochs' | 'minibatches' | 'clipLow' | 'clipHigh' | 'advantageEps' | 'trustKl' | 'maxBacktracks' | 'deal' | 'trustScope' | 'maxStepScale' | 'lossAgg' | 'klStop'>;
  /** The groups (toWire); absent: the request stored for `stored.target`, read from `stored.file`. */
  groups?: readonly TrainGroup[];
  stored?: { file: string; target: number };
}

/** The worker's answer. */
export type UpdateReply =
  | { id: number; ok: true; op: 'train'; weights: Float32Array; steps: number; m: Float64Array; v: Float64Array; counts: Uint32Array; actions: number; epochs: EpochStats[]; onnx: Uint8Array; header?: TrainHeader; samples: number }
  | { id: number; ok: false; message: string; stack?: string; code?: TrainerErrorCode };

export interface UpdateOutcome {
  /** The request's header (of the stored request when the update trained one). */
  header?: TrainHeader;
  /** Samples (trajectories) trained. */
  samples: number;
  actions: number;
  epochs: EpochStats[];
  /** The trained model as ONNX (what the actors load). */
  onnx: Uint8Array;
}

export class UpdateThread {
  private worker: Worker | null = null;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (r: UpdateReply) => void; reject: (e: Error) => void }>();

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(new URL('./update-worker.js', import.meta.url));
    w.on('message', (r: UpdateReply) => {
      const p = this.waiting.get(r.id);
      this.waiting.delete(r.id);
      if (this.waiting.size === 0) w.unref();
      p?.resolve(r);
    });
    const fail = (e: Error) => {
      if (this.worker === w) this.worker = null;
      for (const p of this.waiting.values()) p.reject(e);
      this.waiting.clear();
    };
    w.on('error', (e) => fail(new Error(`the update thread failed: ${e.message}`, { cause: e })));
    w.on('exit', (code) => fail(new Error(`the update thread exited (code ${code}) during an update`)));
    w.unref();
    this.worker = w;
    return w;
  }

  /**
   * Runs `trainer`'s update on `groups` (their advantages already decided) in the worker and writes
   * the result into `trainer.model` and `trainer.optimizer`.
   * @throws Error when the worker fails or the update throws there (its message is kept).
   */
  async run(trainer: GrpoTrainer, groups: readonly TrainGroup[]): Promise<UpdateOutcome> {
    return this.train(trainer, { groups });
  }

  /**
   * Like `run`, on the request stored for `target` in `file` (written ahead), read and decoded in
   * the worker; the outcome carries its header.
   */
  async runStored(trainer: GrpoTrainer, file: string, target: number): Promise<UpdateOutcome> {
    return this.train(trainer, { stored: { file, target } });
  }

  private send(job: UpdateJob, transfer: ArrayBuffer[]): Promise<UpdateReply> {
    const w = this.start();
    return new Promise<UpdateReply>((resolve, reject) => {
      this.waiting.set(job.id, { resolve, reject });
      w.ref();
      w.postMessage(job, transfer);
    });
  }

  private async train(trainer: GrpoTrainer, src: Pick<UpdateJob, 'groups' | 'stored'>): Promise<UpdateOutcome> {
    const { model, optimizer: opt } = trainer;
    const wire = src.groups ? toWire(src.groups) : null;
    if (wire) src = { groups: wire.groups };
    const job: UpdateJob = {
      op: 'train',
      id: ++this.seq,
      dim: model.dim,
      temperature: model.temperature,
      weights: model.weights.slice(),
      adam: {
        lr: opt.lr,
        beta1: opt.beta1,
        beta2: opt.beta2,
        eps: opt.eps,
        ...(opt.maxGradNorm !== undefined ? { maxGradNorm: opt.maxGradNorm } : {}),
        steps: opt.steps,
        m: opt.m.slice(),
        v: opt.v.slice(),
        counts: opt.counts.slice(),
      },
      rule: {
        epochs: trainer.epochs,
        minibatches: trainer.minibatches,
        clipLow: trainer.clipLow,
        clipHigh: trainer.clipHigh,
        advantageEps: trainer.advantageEps,
        trustKl: trainer.trustKl,
        maxBacktracks: trainer.maxBacktracks,
        deal: trainer.deal,
        trustScope: trainer.trustScope,
        maxStepScale: trainer.maxStepScale,
        lossAgg: trainer.lossAgg,
        klStop: trainer.klStop,
      },
      ...src,
    };
    const reply = await this.send(job, [job.weights.buffer, job.adam.m.buffer, job.adam.v.buffer, job.adam.counts.buffer, ...(wire?.traces ? [wire.traces] : [])] as ArrayBuffer[]);
    if (!reply.ok) throw errorOf(reply);
    model.weights.set(reply.weights);
    opt.m.set(reply.m);
    opt.v.set(reply.v);
    opt.counts.set(reply.counts);
    opt.steps = reply.steps;
    return { ...(reply.header ? { header: reply.header } : {}), samples: reply.samples, actions: reply.actions, epochs: reply.epochs, onnx: reply.onnx };
  }

  /** Ends the worker (an update still out is rejected). */
  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}

function errorOf(reply: { message: string; stack?: string; code?: TrainerErrorCode }): Error {
  const e = reply.code !== undefined ? new TrainerError(reply.code, reply.message) : new Error(reply.message);
  if (reply.stack) e.stack = reply.stack;
  return e;
}

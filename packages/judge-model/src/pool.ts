// A pool of inference worker threads, one batch in flight per worker. Calls wait in a FIFO queue;
// each has a deadline (from submission) and an optional abort signal. A worker that dies (crash,
// out of memory) rejects its call with JUDGE_MODEL_CRASHED and is replaced by a fresh one.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from '@owrl/core';
import { fromWireError, JudgeModelError, JudgeModelErrorCode } from './errors.js';
import type { JudgeInput } from './prompt.js';
import type { FromWorker, ToWorker, WorkerInit, WorkerReady } from './protocol.js';
import type { BatchScores } from './runner.js';

const WORKER_URL = new URL('./worker.js', import.meta.url);

interface Job {
  id: number;
  inputs: JudgeInput[];
  settled: boolean;
  resolve(s: BatchScores): void;
  reject(e: JudgeModelError): void;
}

interface Slot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  job: Job | undefined;
  /** Set once the worker's death has been handled (error and exit both report it). */
  gone: boolean;
}

export interface PoolOptions {
  size: number;
  init: WorkerInit;
  resourceLimits?: ResourceLimits;
  logger: Logger;
}

export interface PoolCounters {
  crashes: number;
  timeouts: number;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  readonly counters: PoolCounters = { crashes: 0, timeouts: 0 };

  private constructor(
    private init: WorkerInit,
    private readonly opts: PoolOptions,
  ) {}

  /**
   * Starts the first worker (it resolves the device), then the others on the resolved device.
   * @throws JudgeModelError what the first failing worker reported while loading.
   */
  static async start(opts: PoolOptions): Promise<{ pool: WorkerPool; ready: WorkerReady }> {
    const pool = new WorkerPool(opts.init, opts);
    let ready: WorkerReady;
    try {
      ready = await pool.spawn();
      pool.init = { ...opts.init, device: ready.device };
      await Promise.all(Array.from({ length: opts.size - 1 }, () => pool.spawn()));
    } catch (e) {
      await pool.close();
      throw e;
    }
    return { pool, ready };
  }

  /** Starts one worker and resolves when it has loaded the model. */
  private spawn(): Promise<WorkerReady> {
    const worker = new Worker(WORKER_URL, {
      workerData: this.init,
      ...(this.opts.resourceLimits !== undefined ? { resourceLimits: this.opts.resourceLimits } : {}),
    });
    const slot: Slot = { worker, state: 'starting', job: undefined, gone: false };
    this.slots.push(slot);
    return new Promise<WorkerReady>((resolve, reject) => {
      const died = (why: string) => {
        if (slot.gone) return;
        slot.gone = true;
        const wasStarting = slot.state === 'starting';
        slot.state = 'dead';
        if (wasStarting) {
          this.drop(slot);
          reject(new JudgeModelError(JudgeModelErrorCode.Crashed, `judge worker died while loading the model: ${why}`));
        } else {
          this.onCrash(slot, why);
        }
      };
      worker.on('message', (m: FromWorker) => {
        switch (m.type) {
          case 'ready':
            slot.state = 'idle';
            resolve(m);
            this.dispatch();
            break;
          case 'init_error':
            // The worker exits by itself after reporting.
            slot.gone = true;
            slot.state = 'dead';
            this.drop(slot);
            reject(fromWireError(m.error));
            break;
          case 'result':
          case 'error':
            this.finish(slot, m);
            break;
        }
      });
      worker.on('error', (e: Error) => died(`${e.name}: ${e.message}${(e as { code?: string }).code ? ` (${(e as { code?: string }).code})` : ''}`));
      worker.on('exit', (code) => {
        if (!this.closed) died(`exited with code ${code}`);
      });
    });
  }

  private onCrash(slot: Slot, why: string): void {
    this.counters.crashes++;
    const job = slot.job;
    slot.job = undefined;
    if (job !== undefined && !job.settled) {
      job.settled = true;
      job.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, `judge worker crashed while scoring a batch of ${job.inputs.length}: ${why}`));
    }
    this.drop(slot);
    if (this.closed) return;
    this.opts.logger.error({ why }, 'judge model worker crashed; starting a replacement');
    this.spawn().catch((e: unknown) => {
      this.opts.logger.error({ err: (e as Error).message }, 'judge model worker replacement failed to start');
      if (this.slots.length === 0) this.failQueued(`no judge worker is running: ${(e as Error).message}`);
    });
  }

  private drop(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private failQueued(message: string): void {
    for (const job of this.queue.splice(0)) {
      if (job.settled) continue;
      job.settled = true;
      job.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, message));
    }
  }

  private finish(slot: Slot, m: Extract<FromWorker, { type: 'result' | 'error' }>): void {
    const job = slot.job;
    slot.job = undefined;
    slot.state = 'idle';
    if (job !== undefined && job.id === m.id && !job.settled) {
      job.settled = true;
      if (m.type === 'result') job.resolve(m.scores);
      else job.reject(fromWireError(m.error));
    }
    this.dispatch();
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.state !== 'idle') continue;
      let job = this.queue.shift();
      while (job?.settled) job = this.queue.shift();
      if (job === undefined) return;
      slot.state = 'busy';
      slot.job = job;
      const req: ToWorker = { type: 'score', id: job.id, inputs: job.inputs };
      slot.worker.postMessage(req);
    }
  }

  /**
   * Scores one batch on the next free worker.
   * @throws JudgeModelError JUDGE_MODEL_TIMEOUT after `timeoutMs` (queueing included),
   *   JUDGE_MODEL_ABORTED, JUDGE_MODEL_CRASHED, JUDGE_MODEL_CLOSED, or what the worker reported.
   */
  submit(inputs: JudgeInput[], timeoutMs: number, signal?: AbortSignal): Promise<BatchScores> {
    if (this.closed) return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Closed, 'the judge model was closed'));
    if (signal?.aborted) return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Aborted, 'judge model call aborted before it started'));
    if (this.slots.length === 0) return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, 'no judge worker is running (the last replacement failed to start)'));
    return new Promise<BatchScores>((resolve, reject) => {
      const started = Date.now();
      const onAbort = () => settle(new JudgeModelError(JudgeModelErrorCode.Aborted, `judge model call aborted after ${Date.now() - started} ms`));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const job: Job = {
        id: this.nextId++,
        inputs,
        settled: false,
        resolve: (s) => (cleanup(), resolve(s)),
        reject: (e) => (cleanup(), reject(e)),
      };
      const settle = (e: JudgeModelError) => {
        if (job.settled) return;
        job.settled = true;
        job.reject(e);
      };
      const timer = setTimeout(() => {
        if (job.settled) return;
        this.counters.timeouts++;
        const where = this.queue.includes(job) ? 'still queued' : 'running';
        settle(new JudgeModelError(JudgeModelErrorCode.Timeout, `judge model did not answer a batch of ${inputs.length} within ${timeoutMs} ms (${where})`));
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  /**
   * Rejects queued and running calls with JUDGE_MODEL_CLOSED and stops the workers. Resolves when
   * they have exited, which waits for a forward pass in flight to end: terminating a worker
   * inside onnxruntime's native run() would abort the whole process.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closedError = () => new JudgeModelError(JudgeModelErrorCode.Closed, 'the judge model was closed');
    for (const job of [...this.queue.splice(0), ...this.slots.flatMap((s) => (s.job ? [s.job] : []))]) {
      if (job.settled) continue;
      job.settled = true;
      job.reject(closedError());
    }
    await Promise.all(
      this.slots.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            s.worker.once('exit', () => resolve());
            const req: ToWorker = { type: 'close' };
            s.worker.postMessage(req);
          }),
      ),
    );
  }
}

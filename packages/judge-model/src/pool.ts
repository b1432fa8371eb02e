// The judge's worker threads. On the CPU, by default, every worker is a `model` worker with its own
// copy of the model and scores a call start to end. On a GPU the model is loaded once, in one
// `model` worker, and `prepare` workers render, tokenize and preprocess the next calls while it
// runs the current ones (the CPU can be asked for that split too); calls prepared while the model
// was busy are run together, up to one pass of rows, so the device sees full passes. Calls wait in FIFO queues; each has a deadline (from submission) and an
// optional abort signal. A worker that dies (crash, out of memory) rejects the calls it held with
// JUDGE_MODEL_CRASHED and is replaced by a fresh one of its role.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Logger } from '@owrl/core';
import type { BatchShape } from './batch-plan.js';
import { fromWireError, JudgeModelError, JudgeModelErrorCode } from './errors.js';
import { transferables, type PreparedOutcome } from './prepare.js';
import type { JudgeInput } from './prompt.js';
import type { FromWorker, ToWorker, WorkerInit, WorkerReady, WorkerRole } from './protocol.js';
import type { PassStats, RowOutcome } from './runner.js';
import type { ResolvedDevice } from './session.js';

const WORKER_URL = new URL('./worker.js', import.meta.url);

interface Job {
  id: number;
  inputs: JudgeInput[];
  /** The rows a prepare worker made, while the job waits for a model worker. */
  prepared: PreparedOutcome[] | undefined;
  settled: boolean;
  resolve(rows: RowOutcome[]): void;
  reject(e: JudgeModelError): void;
}

/** What a busy worker holds: one job (score, prepare) or several jobs run as one forward call. */
interface Task {
  id: number;
  jobs: Job[];
}

interface Slot {
  worker: Worker;
  role: WorkerRole;
  state: 'starting' | 'idle' | 'busy' | 'dead';
  task: Task | undefined;
  /** Set once the worker's death has been handled (error and exit both report it). */
  gone: boolean;
}

export interface PoolOptions {
  /**
   * Workers on the device the first model worker resolved: `models` copies of the model, and
   * `prepare` workers (0: each model worker prepares its own calls).
   */
  layout(device: ResolvedDevice): { models: number; prepare: number };
  init: Omit<WorkerInit, 'role'>;
  /** Pass shape on the device the first worker resolved. */
  shapeFor(device: ResolvedDevice): BatchShape;
  /** Called with the forward passes of every finished call. */
  onPasses?(passes: PassStats[]): void;
  resourceLimits?: ResourceLimits;
  logger: Logger;
}

export interface PoolCounters {
  crashes: number;
  timeouts: number;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  /** Jobs not yet started (waiting for a model worker, or with prepare workers for one of those). */
  private readonly waiting: Job[] = [];
  /** With prepare workers: jobs prepared and waiting for a model worker. */
  private readonly ready: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Prepare workers make the rows and model workers only run them (always so on a GPU). */
  private split = false;
  private shape: BatchShape = { maxRows: 1, tokenBudget: 1 };
  readonly counters: PoolCounters = { crashes: 0, timeouts: 0 };

  private constructor(
    private init: Omit<WorkerInit, 'role'>,
    private readonly opts: PoolOptions,
  ) {}

  /**
   * Starts the first model worker (it resolves the device), then the others `layout` asks for on
   * the resolved device.
   * @throws JudgeModelError what the first failing worker reported while loading.
   */
  static async start(opts: PoolOptions): Promise<{ pool: WorkerPool; ready: WorkerReady }> {
    const pool = new WorkerPool(opts.init, opts);
    let ready: WorkerReady;
    try {
      ready = await pool.spawn('model');
      pool.init = { ...opts.init, device: ready.device };
      const layout = opts.layout(ready.device);
      pool.split = layout.prepare > 0;
      pool.shape = opts.shapeFor(ready.device);
      await Promise.all([
        ...Array.from({ length: layout.models - 1 }, () => pool.spawn('model')),
        ...Array.from({ length: layout.prepare }, () => pool.spawn('prepare')),
      ]);
    } catch (e) {
      await pool.close();
      throw e;
    }
    return { pool, ready };
  }

  /** Model workers (copies of the model) and prepare workers running now. */
  get workers(): { model: number; prepare: number } {
    const live = this.slots.filter((s) => s.state !== 'dead');
    return { model: live.filter((s) => s.role === 'model').length, prepare: live.filter((s) => s.role === 'prepare').length };
  }

  get batchShape(): BatchShape {
    return this.shape;
  }

  /** Starts one worker and resolves when it has loaded what its role needs. */
  private spawn(role: WorkerRole): Promise<WorkerReady> {
    const init: WorkerInit = { ...this.init, role };
    const worker = new Worker(WORKER_URL, {
      workerData: init,
      ...(this.opts.resourceLimits !== undefined ? { resourceLimits: this.opts.resourceLimits } : {}),
    });
    const slot: Slot = { worker, role, state: 'starting', task: undefined, gone: false };
    this.slots.push(slot);
    return new Promise<WorkerReady>((resolve, reject) => {
      const died = (why: string) => {
        if (slot.gone) return;
        slot.gone = true;
        const wasStarting = slot.state === 'starting';
        slot.state = 'dead';
        if (wasStarting) {
          this.drop(slot);
          reject(new JudgeModelError(JudgeModelErrorCode.Crashed, `judge ${role} worker died while loading: ${why}`));
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
          case 'prepared':
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
    const task = slot.task;
    slot.task = undefined;
    const rows = task?.jobs.reduce((n, j) => n + j.inputs.length, 0) ?? 0;
    for (const job of task?.jobs ?? []) {
      if (job.settled) continue;
      job.settled = true;
      job.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, `judge ${slot.role} worker crashed while holding ${rows} judgement(s): ${why}`));
    }
    this.drop(slot);
    if (this.closed) return;
    this.opts.logger.error({ why, role: slot.role }, `judge ${slot.role} worker crashed; starting a replacement`);
    this.spawn(slot.role).catch((e: unknown) => {
      this.opts.logger.error({ err: (e as Error).message, role: slot.role }, `judge ${slot.role} worker replacement failed to start`);
      if (!this.slots.some((s) => s.role === slot.role)) this.failQueued(`no judge ${slot.role} worker is running: ${(e as Error).message}`);
    });
  }

  private drop(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private failQueued(message: string): void {
    for (const job of [...this.waiting.splice(0), ...this.ready.splice(0)]) {
      if (job.settled) continue;
      job.settled = true;
      job.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, message));
    }
  }

  private finish(slot: Slot, m: Extract<FromWorker, { type: 'prepared' | 'result' | 'error' }>): void {
    const task = slot.task;
    slot.task = undefined;
    slot.state = 'idle';
    if (task !== undefined && task.id === m.id) {
      if (m.type === 'prepared') {
        const [job] = task.jobs;
        if (job !== undefined && !job.settled) {
          job.prepared = m.rows;
          this.ready.push(job);
        }
      } else if (m.type === 'error') {
        const e = fromWireError(m.error);
        for (const job of task.jobs) {
          if (job.settled) continue;
          job.settled = true;
          job.reject(e);
        }
      } else {
        this.opts.onPasses?.(m.result.passes);
        let at = 0;
        for (const job of task.jobs) {
          const rows = m.result.rows.slice(at, at + job.inputs.length);
          at += job.inputs.length;
          if (job.settled) continue;
          job.settled = true;
          job.resolve(rows);
        }
      }
    }
    this.dispatch();
  }

  private take(queue: Job[]): Job | undefined {
    let job = queue.shift();
    while (job?.settled) job = queue.shift();
    return job;
  }

  /** The prepared jobs a model worker runs next: the oldest, and more while they fit one pass of rows. */
  private takeReady(): Job[] {
    const first = this.take(this.ready);
    if (first === undefined) return [];
    const jobs = [first];
    let rows = first.inputs.length;
    for (let i = 0; i < this.ready.length; ) {
      const job = this.ready[i];
      if (job === undefined) break;
      if (job.settled) {
        this.ready.splice(i, 1);
      } else if (rows + job.inputs.length <= this.shape.maxRows) {
        this.ready.splice(i, 1);
        jobs.push(job);
        rows += job.inputs.length;
      } else {
        break;
      }
    }
    return jobs;
  }

  private send(slot: Slot, jobs: Job[], req: Exclude<ToWorker, { type: 'close' }>): void {
    slot.state = 'busy';
    slot.task = { id: req.id, jobs };
    // Prepared screenshots' patches are moved to the model worker, not copied.
    slot.worker.postMessage(req, req.type === 'forward' ? transferables(req.rows) : []);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.state !== 'idle') continue;
      const id = this.nextId++;
      if (!this.split) {
        const job = this.take(this.waiting);
        if (job !== undefined) this.send(slot, [job], { type: 'score', id, inputs: job.inputs, shape: this.shape });
      } else if (slot.role === 'prepare') {
        const job = this.take(this.waiting);
        if (job !== undefined) this.send(slot, [job], { type: 'prepare', id, inputs: job.inputs });
      } else {
        const jobs = this.takeReady();
        if (jobs.length > 0) this.send(slot, jobs, { type: 'forward', id, rows: jobs.flatMap((j) => j.prepared ?? []), shape: this.shape });
      }
    }
  }

  /**
   * Scores one call's inputs on the next free workers.
   * @throws JudgeModelError JUDGE_MODEL_TIMEOUT after `timeoutMs` (queueing included),
   *   JUDGE_MODEL_ABORTED, JUDGE_MODEL_CRASHED, JUDGE_MODEL_CLOSED, or what the worker reported.
   */
  submit(inputs: JudgeInput[], timeoutMs: number, signal?: AbortSignal): Promise<RowOutcome[]> {
    if (this.closed) return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Closed, 'the judge model was closed'));
    if (signal?.aborted) return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Aborted, 'judge model call aborted before it started'));
    if (!this.slots.some((s) => s.role === 'model')) {
      return Promise.reject(new JudgeModelError(JudgeModelErrorCode.Crashed, 'no judge model worker is running (the last replacement failed to start)'));
    }
    return new Promise<RowOutcome[]>((resolve, reject) => {
      const started = Date.now();
      const onAbort = () => settle(new JudgeModelError(JudgeModelErrorCode.Aborted, `judge model call aborted after ${Date.now() - started} ms`));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const job: Job = {
        id: this.nextId++,
        inputs,
        prepared: undefined,
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
        const where = this.waiting.includes(job) ? 'still queued' : this.ready.includes(job) ? 'prepared, waiting for the model' : 'running';
        settle(new JudgeModelError(JudgeModelErrorCode.Timeout, `judge model did not answer a batch of ${inputs.length} within ${timeoutMs} ms (${where})`));
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(job);
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
    for (const job of [...this.waiting.splice(0), ...this.ready.splice(0), ...this.slots.flatMap((s) => s.task?.jobs ?? [])]) {
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

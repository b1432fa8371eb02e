// Messages between the judge's main thread and its workers. A `model` worker holds the sessions
// (and a tokenizer): it scores inputs start to end (CPU) or runs prepared rows (GPU). A `prepare`
// worker holds only the tokenizer and image preprocessing: on a GPU it does that work beside the
// model, so the model is loaded once per GPU and never waits for a prompt to be rendered.
import type { BatchShape } from './batch-plan.js';
import type { WireError } from './errors.js';
import type { PreparedOutcome } from './prepare.js';
import type { JudgeInput } from './prompt.js';
import type { ForwardResult } from './runner.js';
import type { DeviceSkip, JudgeDevice, ResolvedDevice } from './session.js';

export type WorkerRole = 'model' | 'prepare';

export interface WorkerInit {
  role: WorkerRole;
  modelDir: string;
  device: JudgeDevice;
  threads: number;
  /** Intra-op threads when the device is a GPU. */
  gpuThreads: number;
  maxPromptTokens?: number;
}

export interface WorkerReady {
  type: 'ready';
  role: WorkerRole;
  /** The device the sessions run on (`prepare` workers: 'cpu'). */
  device: ResolvedDevice;
  /** With `auto`: the devices passed over and why. */
  passedOver: DeviceSkip[];
  layout: string;
  paddingSide: 'left' | 'right';
}

export type FromWorker =
  | WorkerReady
  | { type: 'init_error'; error: WireError }
  | { type: 'result'; id: number; result: ForwardResult }
  | { type: 'prepared'; id: number; rows: PreparedOutcome[] }
  | { type: 'error'; id: number; error: WireError };

/** model worker: prepare and forward in this thread. */
export interface ScoreRequest {
  type: 'score';
  id: number;
  inputs: JudgeInput[];
  shape: BatchShape;
}

/** prepare worker: render, tokenize, fit and preprocess images. */
export interface PrepareRequest {
  type: 'prepare';
  id: number;
  inputs: JudgeInput[];
}

/** model worker: forward passes over rows prepared elsewhere. */
export interface ForwardRequest {
  type: 'forward';
  id: number;
  rows: PreparedOutcome[];
  shape: BatchShape;
}

/** Finish the work in flight, release the sessions and exit. */
export interface CloseRequest {
  type: 'close';
}

export type ToWorker = ScoreRequest | PrepareRequest | ForwardRequest | CloseRequest;

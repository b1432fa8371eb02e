// Messages between the judge's main thread and its inference workers.
import type { WireError } from './errors.js';
import type { JudgeInput } from './prompt.js';
import type { BatchScores } from './runner.js';
import type { JudgeDevice, ResolvedDevice } from './session.js';

export interface WorkerInit {
  modelDir: string;
  device: JudgeDevice;
  threads: number;
  maxPromptTokens?: number;
}

export interface WorkerReady {
  type: 'ready';
  device: ResolvedDevice;
  /** Why `auto` fell back to the CPU. */
  fallback?: string;
  layout: string;
  paddingSide: 'left' | 'right';
}

export type FromWorker =
  | WorkerReady
  | { type: 'init_error'; error: WireError }
  | { type: 'result'; id: number; scores: BatchScores }
  | { type: 'error'; id: number; error: WireError };

export interface ScoreRequest {
  type: 'score';
  id: number;
  inputs: JudgeInput[];
}

/** Finish the batch in flight, release the sessions and exit. */
export interface CloseRequest {
  type: 'close';
}

export type ToWorker = ScoreRequest | CloseRequest;

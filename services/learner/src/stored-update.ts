// What the publisher keeps on disk across restarts: update requests written ahead (trainer-rpc's
// stored request, `batch-v<N>.pb`) and, with a remote trainer, the artifact it answered for each
// version (`artifact-v<N>.pb`).
import fs from 'node:fs';
import { fromBinary, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import { readStoredRequest, writeStoredRequest, writeStoredRequestAsync } from '@owrl/trainer-rpc';
import { FatalRunCode, FatalRunError } from './errors.js';
import type { TrainBatch } from './train-batch.js';

/** Stores the request of `b` in `file`, synced before this returns. */
export function storeBatch(file: string, b: TrainBatch): void {
  writeStoredRequest(file, b.header, b.groups);
}

/** storeBatch, written and synced in the thread pool. */
export function storeBatchAsync(file: string, b: TrainBatch): Promise<void> {
  return writeStoredRequestAsync(file, b.header, b.groups);
}

/**
 * The request stored in `file` as a batch to send again (its figures are not stored: zeros), or
 * undefined when there is none.
 * @throws FatalRunError TRAINER_BATCH_CORRUPT when the file cannot be read back.
 */
export function readStoredBatch(file: string): TrainBatch | undefined {
  let req;
  try {
    req = readStoredRequest(file);
  } catch (e) {
    throw new FatalRunError(FatalRunCode.TrainerBatchCorrupt, (e as Error).message, { cause: e });
  }
  return req ? { header: req.header, groups: req.groups, steps: 0, skippedSteps: 0, maskedSteps: 0, samplesNotSent: 0, unreadable: [], meanReward: 0 } : undefined;
}

/** The artifact recorded in `file`, or undefined when there is none. */
export function readArtifactRecord(file: string): PolicyArtifact | undefined {
  return fs.existsSync(file) ? fromBinary(PolicyArtifactSchema, new Uint8Array(fs.readFileSync(file))) : undefined;
}

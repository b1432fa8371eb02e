// The worker thread of UpdateThread (update-thread.ts): one GrpoTrainer update per message, on
// copies of the caller's model and optimizer state, answered with the new state and the artifact.
// An update written ahead is read and decoded here from its file.
import { parentPort } from 'node:worker_threads';
import { exportOnnx, PointerModel } from '@owrl/policy';
import { fromBinary, PolicyTraceSchema, type TrainGroup, type TrainHeader } from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { readStoredRequest, TrainerError, validateTrainTraces } from '@owrl/trainer-rpc';
import { groupIndexOf, samplesOf } from './convert.js';
import type { UpdateJob, UpdateReply } from './update-thread.js';

/**
 * The groups as posted (toWire) with every trace decoded: the ones that came as bytes are decoded
 * here, and checked as the caller would have (it checked their kind only).
 */
function fromWire(groups: readonly TrainGroup[]): readonly TrainGroup[] {
  let decoded = false;
  for (const g of groups) {
    for (const s of g.samples) {
      for (const st of s.steps) {
        const w = st as typeof st & { traceBytes?: Uint8Array };
        if (!w.traceBytes) continue;
        try {
          st.trace = fromBinary(PolicyTraceSchema, w.traceBytes);
        } catch (e) {
          throw new Error(`cannot decode a step's trace (${w.traceBytes.length} bytes): ${(e as Error).message}`, { cause: e });
        }
        delete w.traceBytes;
        decoded = true;
      }
    }
  }
  if (decoded) validateTrainTraces(groups, ['pointer']);
  return groups;
}

function update(job: UpdateJob): UpdateReply {
  let groups = job.groups ? fromWire(job.groups) : undefined;
  let header: TrainHeader | undefined;
  if (!groups) {
    const st = job.stored;
    if (!st) throw new Error('an update names neither its groups nor a stored request');
    const req = readStoredRequest(st.file);
    if (!req) throw new Error(`no stored request for version ${st.target}: ${st.file} is missing`);
    if (Number(req.header.targetVersion) !== st.target) throw new Error(`${st.file} is the request for version ${req.header.targetVersion}, not ${st.target}`);
    // Its traces were written as they came (still encoded, their kind checked only): checked here.
    validateTrainTraces(req.groups, ['pointer']);
    groups = req.groups;
    header = req.header;
  }
  const model = new PointerModel({ dim: job.dim, weights: job.weights, temperature: job.temperature });
  const a = job.adam;
  const opt = new Adam(job.dim, { lr: a.lr, beta1: a.beta1, beta2: a.beta2, eps: a.eps, ...(a.maxGradNorm !== undefined ? { maxGradNorm: a.maxGradNorm } : {}) });
  opt.m.set(a.m);
  opt.v.set(a.v);
  opt.counts.set(a.counts);
  opt.steps = a.steps;
  const trainer = new GrpoTrainer(model, opt, job.rule);
  const samples = samplesOf(groups);
  const { actions, epochs } = trainer.updateSamples(samples, groupIndexOf(groups));
  return { id: job.id, ok: true, op: 'train', weights: model.weights, steps: opt.steps, m: opt.m, v: opt.v, counts: opt.counts, actions, epochs, onnx: exportOnnx(model), samples: samples.length, ...(header ? { header } : {}) };
}

const port = parentPort;
if (!port) throw new Error('update-worker.js runs as a worker thread of UpdateThread');
port.on('message', (job: UpdateJob) => {
  let reply: UpdateReply;
  try {
    reply = update(job);
  } catch (e) {
    const err = e as Error;
    reply = { id: job.id, ok: false, message: err.message, ...(err.stack ? { stack: err.stack } : {}), ...(err instanceof TrainerError ? { code: err.code } : {}) };
  }
  port.postMessage(reply, reply.ok ? ([reply.weights.buffer, reply.m.buffer, reply.v.buffer, reply.counts.buffer] as ArrayBuffer[]) : []);
});

// Inference worker thread: loads the model folder (tokenizer, graphs) once, then scores batches.
// onnxruntime-node's run() blocks the thread it runs on; here that is this worker, never the
// judge's event loop. Prompt rendering, tokenization and JPEG decoding also run here, because they
// cost milliseconds per long trajectory and would otherwise stall the main thread too.
import { parentPort, workerData } from 'node:worker_threads';
import { toWireError } from './errors.js';
import { readModelFolder } from './folder.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { JudgeRunner } from './runner.js';

if (parentPort === null) throw new Error('worker.js must run in a worker thread');
const port = parentPort;
const send = (m: FromWorker) => port.postMessage(m);
const init = workerData as WorkerInit;

let runner: JudgeRunner | undefined;

async function start(): Promise<void> {
  try {
    const folder = readModelFolder(init.modelDir);
    runner = await JudgeRunner.open(folder, init.device, { threads: init.threads }, init.maxPromptTokens);
    send({
      type: 'ready',
      device: runner.device,
      ...(runner.fallback !== undefined ? { fallback: runner.fallback } : {}),
      layout: folder.judge.layout,
      paddingSide: runner.tokenizer.paddingSide,
    });
  } catch (e) {
    send({ type: 'init_error', error: toWireError(e) });
    port.close();
  }
}

// Loading, each batch and the shutdown run strictly one after another. The shutdown in
// particular waits for the batch in flight: a worker terminated inside a native run() aborts the
// whole process, so the pool asks the worker to leave instead of terminating it.
let chain: Promise<void> = start();
port.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    chain = chain.then(async () => {
      await runner?.release();
      port.close();
    });
    return;
  }
  chain = chain.then(async () => {
    if (runner === undefined) return;
    try {
      send({ type: 'result', id: m.id, scores: await runner.score(m.inputs) });
    } catch (e) {
      send({ type: 'error', id: m.id, error: toWireError(e) });
    }
  });
});

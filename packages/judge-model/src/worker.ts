// Judge worker thread, in one of two roles (protocol.ts). onnxruntime-node's run() blocks the
// thread it runs on; here that is this worker, never the judge's event loop. Prompt rendering,
// tokenization and JPEG decoding also run in workers, because they cost milliseconds per long
// trajectory and would otherwise stall the main thread too.
import { parentPort, workerData } from 'node:worker_threads';
import { toWireError } from './errors.js';
import { readModelFolder } from './folder.js';
import { prepareRows, promptOptions, promptTokenLimit, transferables } from './prepare.js';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { JudgeRunner } from './runner.js';
import { JudgeTokenizer } from './text.js';

if (parentPort === null) throw new Error('worker.js must run in a worker thread');
const port = parentPort;
const send = (m: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
const init = workerData as WorkerInit;

let runner: JudgeRunner | undefined;
let prepare: ((m: Extract<ToWorker, { type: 'prepare' }>) => void) | undefined;

async function start(): Promise<void> {
  try {
    const folder = readModelFolder(init.modelDir);
    if (init.role === 'model') {
      runner = await JudgeRunner.open(folder, init.device, { threads: init.threads, gpuThreads: init.gpuThreads }, init.maxPromptTokens);
      send({ type: 'ready', role: 'model', device: runner.device, passedOver: runner.passedOver, layout: folder.judge.layout, paddingSide: runner.tokenizer.paddingSide });
    } else {
      const tokenizer = new JudgeTokenizer(folder);
      const prompt = promptOptions(folder);
      const max = promptTokenLimit(folder, init.maxPromptTokens);
      prepare = (m) => {
        const rows = prepareRows(folder, tokenizer, prompt, max, m.inputs);
        send({ type: 'prepared', id: m.id, rows }, transferables(rows));
      };
      send({ type: 'ready', role: 'prepare', device: 'cpu', passedOver: [], layout: folder.judge.layout, paddingSide: tokenizer.paddingSide });
    }
  } catch (e) {
    send({ type: 'init_error', error: toWireError(e) });
    port.close();
  }
}

// Loading, each request and the shutdown run strictly one after another. The shutdown in
// particular waits for the pass in flight: a worker terminated inside a native run() aborts the
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
    try {
      switch (m.type) {
        case 'prepare':
          prepare?.(m);
          break;
        case 'score':
          if (runner !== undefined) send({ type: 'result', id: m.id, result: await runner.score(m.inputs, m.shape) });
          break;
        case 'forward':
          if (runner !== undefined) send({ type: 'result', id: m.id, result: await runner.forward(m.rows, m.shape) });
          break;
      }
    } catch (e) {
      send({ type: 'error', id: m.id, error: toWireError(e) });
    }
  });
});

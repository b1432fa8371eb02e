// Benchmarks: `npm run bench -- <name>`. Each prints progress to stderr and, as its last line on
// stdout, one JSON object of figures.
import { installStopOnSignal, stoppingOnSignal } from './stop-on-signal.js';

type Bench = (args: string[]) => Promise<Record<string, unknown>>;

// Each bench is loaded when asked for: a bench needs only its own dependencies (the judge bench
// runs on a GPU host that carries onnxruntime and nothing of the bus or the browser).
const BENCHES: Record<string, () => Promise<Bench>> = {
  learning: async () => (await import('./learning.js')).learningBench,
  async: async () => (await import('./async.js')).asyncBench,
  env: async () => (await import('./env.js')).envBench,
  episode: async () => (await import('./episode.js')).episodeBench,
  judge: async () => (await import('./judge.js')).judgeBench,
  warmup: async () => (await import('./warmup.js')).warmupBench,
  weights: async () => (await import('./weights.js')).weightsBench,
  'llm-loop': async () => (await import('./llm-loop.js')).llmLoopBench,
  'torch-loop': async () => (await import('./torch-loop.js')).torchLoopBench,
  fleet: async () => (await import('./fleet.js')).fleetBench,
  bus: async () => (await import('./bus.js')).busBench,
  watch: async () => (await import('./watch.js')).watchBench,
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const load = name ? BENCHES[name] : undefined;
  if (!load) {
    process.stderr.write(`usage: npm run bench -- <name>\n  names: ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  // A signal stops the processes the bench started too (see stop-on-signal.ts).
  installStopOnSignal();
  const result = await (await load())(args);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e: unknown) => {
  // Stopped by a signal: the failure is the stop's doing, and the handler exits when it is done.
  if (stoppingOnSignal()) return;
  process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

// Benchmarks: `npm run bench -- <name>`. Each prints progress to stderr and, as its last line on
// stdout, one JSON object of figures.
import { asyncBench } from './async.js';
import { busBench } from './bus.js';
import { judgeBench } from './judge.js';
import { envBench } from './env.js';
import { episodeBench } from './episode.js';
import { fleetBench } from './fleet.js';
import { learningBench } from './learning.js';
import { installStopOnSignal, stoppingOnSignal } from './stop-on-signal.js';
import { llmLoopBench } from './llm-loop.js';
import { warmupBench } from './warmup.js';
import { watchBench } from './watch.js';
import { weightsBench } from './weights.js';

const BENCHES: Record<string, (args: string[]) => Promise<Record<string, unknown>>> = {
  learning: learningBench,
  async: asyncBench,
  env: envBench,
  episode: episodeBench,
  judge: judgeBench,
  warmup: warmupBench,
  weights: weightsBench,
  'llm-loop': llmLoopBench,
  fleet: fleetBench,
  bus: busBench,
  watch: watchBench,
};

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const bench = name ? BENCHES[name] : undefined;
  if (!bench) {
    process.stderr.write(`usage: npm run bench -- <name>\n  names: ${Object.keys(BENCHES).join(', ')}\n`);
    process.exit(2);
  }
  // A signal stops the processes the bench started too (see stop-on-signal.ts).
  installStopOnSignal();
  const result = await bench(args);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e: unknown) => {
  // Stopped by a signal: the failure is the stop's doing, and the handler exits when it is done.
  if (stoppingOnSignal()) return;
  process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});

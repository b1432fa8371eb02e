// Weight-sync benchmark: how long from the learner publishing a new policy version to every actor
// running it. A real nats-server and 8 real actor processes (services/actor, one browser slot
// each, idle: no task is dispatched); the bench publishes the way the learner does (the ONNX
// export of the pointer model, served over HTTP with its sha256 — here by a plain in-process
// server, as services are not imported — then the KV owrl_weights pointer) and reads each actor's "policy swapped" log event, the moment its policy holder has the
// new version loaded (fetched, sha256-checked, onnxruntime session created). Latency of one
// version = the last actor's swap time − the pointer's put. Figures: p50/p99 over the versions,
// the same per actor, and the publication's own cost (export + artifact write). Measured once the
// actors have started (v0 loaded) and their start-up work is over (`settle_s`).
//   npm run bench -- weights [--actors N] [--versions N]
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { connectBus, ensureTopology, WeightsPointer } from '@owrl/bus';
import { DEFAULT_DIM, exportOnnx, initialModel, POLICY_KIND } from '@owrl/policy';
import { make, PolicyArtifactSchema } from '@owrl/proto';
import { startSystem, waitUntil, type OwrlSystem } from '@owrl/testkit';
import { procStat } from './fleet-run.js';

const RUN_ID = 'bench-weights';

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0;
}

/** Serves artifacts by name from memory (what the learner's artifact server does from its folder). */
async function serveArtifacts(): Promise<{ put(name: string, bytes: Uint8Array): string; close(): Promise<void> }> {
  const files = new Map<string, Uint8Array>();
  const server = http.createServer((req, res) => {
    const bytes = files.get((req.url ?? '').replace(/^\/artifacts\//, ''));
    if (!bytes) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    put: (name, bytes) => {
      files.set(name, bytes);
      return `http://127.0.0.1:${port}/artifacts/${name}`;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Swap times (ms since the epoch, from pino's `time`: epoch ms or an ISO string) by policy version, read from an actor's log. */
function swapsOf(logFile: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('policy swapped')) continue;
    try {
      const j = JSON.parse(line) as { msg?: string; time?: number | string; policyVersion?: number };
      const at = typeof j.time === 'string' ? Date.parse(j.time) : j.time;
      if (j.msg === 'policy swapped' && typeof at === 'number' && Number.isFinite(at) && typeof j.policyVersion === 'number') out.set(j.policyVersion, at);
    } catch {
      // a line still being written
    }
  }
  return out;
}

/**
 * Waits until the processes `pids()` names use less than `maxPct` % of a core together over one
 * second (at most `timeoutMs`); returns how long it waited and the last second's share.
 */
async function waitForQuiet(pids: () => number[], maxPct = 20, timeoutMs = 60_000): Promise<{ waitedS: number; cpuPct: number }> {
  const t0 = performance.now();
  const ticks = (): number => pids().reduce((a, p) => a + procStat(p).cpuTicks, 0);
  for (;;) {
    const before = ticks();
    await new Promise((r) => setTimeout(r, 1000));
    // Clock ticks are 1/100 s: ticks per second = % of a core.
    const cpuPct = ticks() - before;
    const waitedS = Number(((performance.now() - t0) / 1000).toFixed(1));
    if (cpuPct < maxPct || performance.now() - t0 > timeoutMs) return { waitedS, cpuPct };
  }
}

export async function weightsBench(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, options: { actors: { type: 'string', default: '8' }, versions: { type: 'string', default: '20' }, gap: { type: 'string', default: '300' } } });
  const nActors = Number(values.actors);
  const nVersions = Number(values.versions);
  const gapMs = Number(values.gap);
  if (!Number.isInteger(nActors) || nActors < 1) throw new Error(`--actors ${values.actors}: expected an integer >= 1`);
  if (!Number.isInteger(nVersions) || nVersions < 2) throw new Error(`--versions ${values.versions}: expected an integer >= 2`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-weights-'));
  const t0 = Date.now();
  let sys: OwrlSystem | null = null;
  const artifacts = await serveArtifacts();
  try {
    sys = await startSystem({ runId: RUN_ID, actors: nActors, slots: 1, logDir: path.join(dir, 'logs'), autostart: { sites: false, learner: false, judge: false, actors: true } });
    const system = sys;
    const bus = await connectBus({ servers: system.natsUrl, name: 'owrl-bench-weights' });
    try {
      await ensureTopology(bus, {});
      const weights = await WeightsPointer.open(bus);
      const model = initialModel({ dim: DEFAULT_DIM });
      const names = system.names().filter((n) => n.startsWith('actor-'));
      const publishMs: number[] = [];
      const publish = async (version: number): Promise<number> => {
        const tp = performance.now();
        // A new version differs in its weights, as after an update.
        for (let i = 0; i < 64; i++) model.weights[(version * 7919 + i * 104_729) % model.dim] = version / 100 + i / 1000;
        const bytes = exportOnnx(model);
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const uri = artifacts.put(`policy-v${version}.onnx`, bytes);
        publishMs.push(performance.now() - tp);
        const at = Date.now();
        await weights.put(
          make(PolicyArtifactSchema, { version: BigInt(version), uri, sha256, bytes: BigInt(bytes.length), kind: POLICY_KIND, runId: RUN_ID, createdAtMs: BigInt(at), temperature: model.temperature }),
        );
        return at;
      };
      const allSwapped = (version: number, timeoutMs: number) =>
        waitUntil(
          `all ${nActors} actors running policy v${version}`,
          () => {
            const times = names.map((n) => swapsOf(system.process(n).logFile).get(version));
            return times.every((t) => t !== undefined) ? (times as number[]) : undefined;
          },
          { timeoutMs, intervalMs: 20, abort: () => system.failure() },
        );

      // Version 0 before the actors are up: what a starting actor loads (not measured).
      await publish(0);
      process.stderr.write(`bench weights: waiting for ${nActors} actors to start\n`);
      await system.waitForActors(nActors, { timeoutMs: 300_000 });
      await allSwapped(0, 300_000);
      // Then until the actors' start-up is over (their browsers' own start-up work included): 8
      // actors starting at once hold the 2 cores for seconds after they run v0, and v1 would
      // measure that start (several times the lag of later versions). In a run the first update
      // comes a round after the fleet started.
      const settle = await waitForQuiet(() => names.flatMap((n) => [system.process(n).pid ?? 0, ...system.process(n).descendantPids()]));
      process.stderr.write(`bench weights: actors quiet after ${settle.waitedS} s (${settle.cpuPct} % of a core over the last second)\n`);

      const lag: number[] = [];
      const perActor: number[] = [];
      for (let v = 1; v <= nVersions; v++) {
        const at = await publish(v);
        const times = await allSwapped(v, 60_000);
        const each = times.map((t) => t - at);
        perActor.push(...each);
        lag.push(Math.max(...each));
        process.stderr.write(`bench weights: v${v} on all ${nActors} actors after ${Math.max(...each)} ms (first ${Math.min(...each)} ms)\n`);
        await new Promise((r) => setTimeout(r, gapMs));
      }
      const r1 = (x: number) => Number(x.toFixed(1));
      return {
        bench: 'weights',
        actors: nActors,
        versions: nVersions,
        artifact_bytes: exportOnnx(model).length,
        publish_ms_p50: r1(quantile(publishMs, 0.5)),
        per_actor_p50_ms: quantile(perActor, 0.5),
        per_actor_p99_ms: quantile(perActor, 0.99),
        cpus: os.cpus().length,
        load_avg_1m: r1(os.loadavg()[0] ?? 0),
        settle_s: settle.waitedS,
        wall_s: r1((Date.now() - t0) / 1000),
        p50_ms: quantile(lag, 0.5),
        p99_ms: quantile(lag, 0.99),
      };
    } finally {
      await bus.close();
    }
  } finally {
    await sys?.dispose();
    await artifacts.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

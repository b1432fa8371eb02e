// Fleet benchmark (scale on paper): N browser slots simulated by synthetic actors (no browsers)
// against the real nats-server, judge and learner (async mode, gRPC), for several N one after the
// other in one invocation. Figures per N: trajectories per second taken in by the learner,
// coordination overhead per trajectory as a share of the episode time as run (idle slot time +
// finished→judged + judged→ingested), learner/judge/nats-server memory and CPU, JetStream storage,
// lost (published by an actor, never reached the learner) and duplicated (an id published twice,
// or a redelivery the learner had to drop). The last line holds the largest N's figures and all
// runs under `runs`.
//   npm run bench -- fleet [--slots 500,2000,8000] [--speedup S | --rate R] [--window 60] [--warmup 40]
//                          [--shot-kib 48] [--max-steps 15] [--actors-per 2000]
// Without --speedup, the episode durations are compressed so that each N produces about R
// trajectories per second (default 40), never slower than real time. The episode model and its
// sources: docs/sizing.md.
import { parseArgs } from 'node:util';
import os from 'node:os';
import { runFleet, type FleetFigures } from './fleet-run.js';

/** Mean real episode seconds of the default model at a 15-step budget (docs/sizing.md): ~11.5 steps × 5 s × e^(0.6²/2). */
export const MEAN_EPISODE_S_15 = 11.5 * 5 * Math.exp(0.18);

function positive(name: string, raw: string, integer = false): number {
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) throw new Error(`--${name} ${raw}: expected a positive ${integer ? 'integer' : 'number'}`);
  return v;
}

export async function fleetBench(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({
    args,
    options: {
      slots: { type: 'string', default: '500,2000,8000' },
      speedup: { type: 'string' },
      rate: { type: 'string', default: '40' },
      window: { type: 'string', default: '60' },
      warmup: { type: 'string' },
      'shot-kib': { type: 'string', default: '48' },
      'max-steps': { type: 'string', default: '15' },
      'actors-per': { type: 'string', default: '2000' },
    },
  });
  const sizes = values.slots.split(',').map((s) => positive('slots', s.trim(), true));
  const rate = positive('rate', values.rate);
  const windowS = positive('window', values.window);
  const shotBytes = Math.round(Number(values['shot-kib']) * 1024);
  if (!Number.isFinite(shotBytes) || shotBytes < 0) throw new Error(`--shot-kib ${values['shot-kib']}: expected a number >= 0`);
  const maxSteps = positive('max-steps', values['max-steps'], true);
  const actorsPer = positive('actors-per', values['actors-per'], true);
  const meanReal = MEAN_EPISODE_S_15 * (maxSteps / 15);
  const runs: FleetFigures[] = [];
  for (const slots of sizes) {
    const speedup = values.speedup !== undefined ? positive('speedup', values.speedup) : Math.max(1, Number(((rate * meanReal) / slots).toFixed(2)));
    const meanRun = meanReal / speedup;
    // The synchronised start settles after about two mean episodes.
    const warmupS = values.warmup !== undefined ? positive('warmup', values.warmup) : Math.min(120, Math.max(20, 2 * meanRun));
    const actors = Math.max(1, Math.ceil(slots / actorsPer));
    process.stderr.write(`bench fleet: ${slots} slots on ${actors} synthetic actors, speedup ${speedup} (mean episode ~${meanRun.toFixed(1)} s as run)\n`);
    const f = await runFleet({
      slots,
      actors,
      speedup,
      windowS,
      warmupS,
      shotBytes,
      maxSteps,
      drainS: 90,
      stepMedianS: 5,
      // An update per ~slots/8 trajectories: the paper-sized run's 8 groups × 5 at 80–100 rollouts, scaled.
      groupsPerRound: Math.max(8, Math.ceil(slots / 40)),
      runId: `bench-fleet-${slots}`,
    });
    process.stderr.write(`bench fleet: ${JSON.stringify(f)}\n`);
    runs.push(f);
  }
  const last = runs[runs.length - 1] as FleetFigures;
  return {
    bench: 'fleet',
    slots: last.slots,
    cpus: os.cpus().length,
    runs,
    overhead_pct: last.overhead_pct,
    traj_per_s: last.traj_per_s,
    learner_rss_mib: last.learner_rss_mib,
    lost: runs.reduce((a, r) => a + r.lost, 0),
    dup: runs.reduce((a, r) => a + r.dup, 0),
  };
}

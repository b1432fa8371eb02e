// Fleet benchmark (scale on paper): N browser slots simulated by synthetic actors (no browsers)
// against the real nats-server, judge and learner (async mode, gRPC), for several N one after the
// other in one invocation. Figures per N: trajectories per second taken in by the learner,
// coordination overhead per trajectory as a share of the episode time as run (idle slot time +
// finished→judged + judged→ingested), learner/judge/nats-server memory and CPU, JetStream storage,
// lost (published by an actor, never reached the learner) and duplicated (an id published twice,
// or a redelivery the learner had to drop). The last line holds the largest N's figures and all
// runs under `runs`.
//   npm run bench -- fleet [--slots 500,2000,8000] [--speedup S | --rate R] [--window 60] [--warmup 40]
//                          [--shot-kib 48] [--max-steps 15] [--actors-per 2000] [--round-share 0.45]
//                          [--env KEY=VALUE ...]
// The time scale: without --speedup, the episode durations are scaled so that each N produces
// about R trajectories per second (default 40): compressed (speedup > 1) when N slots in real time
// would offer fewer, DILATED (speedup < 1) when they would offer more than R. Real time at 8000
// slots offers ~120 trajectories/s (mean episode ~67 s), more than this 2-core machine's whole
// pipeline carries (fleet, nats-server, judge, learner and its update thread share it), so a
// real-time run there measures the machine's ceiling, not the coordination overhead; a dilated run
// measures the overhead at a load the machine carries. Every figure names its time scale
// (`speedup`; 0.25 = every episode waits 4× its real duration). Absolute lags (seconds) do not
// scale with it, so their share of a dilated episode is smaller than of a real one: the last line
// also gives `overhead_pct_real` (idle share as run + the lags against the real mean episode). The
// slots start staggered (each one's first episode waits only the rest of one under way), so the
// fleet runs at its steady rate from the start; the warm-up (default 1.5 mean episodes as run,
// 20–600 s) lets the learner's pending groups fill. The episode model and its sources:
// docs/sizing.md.
import { parseArgs } from 'node:util';
import os from 'node:os';
import { parseEnvArgs, runFleet, type FleetFigures } from './fleet-run.js';

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
      'round-share': { type: 'string', default: '0.45' },
      // KEY=VALUE for every service of the run (repeatable), e.g. --env OWRL_HELD_STEPS=stream:
      // the same fleet with another setting, to compare.
      env: { type: 'string', multiple: true, default: [] },
    },
  });
  const env = parseEnvArgs(values.env);
  const sizes = values.slots.split(',').map((s) => positive('slots', s.trim(), true));
  const rate = positive('rate', values.rate);
  const windowS = positive('window', values.window);
  const shotBytes = Math.round(Number(values['shot-kib']) * 1024);
  if (!Number.isFinite(shotBytes) || shotBytes < 0) throw new Error(`--shot-kib ${values['shot-kib']}: expected a number >= 0`);
  const maxSteps = positive('max-steps', values['max-steps'], true);
  const actorsPer = positive('actors-per', values['actors-per'], true);
  const roundShare = positive('round-share', values['round-share']);
  const meanReal = MEAN_EPISODE_S_15 * (maxSteps / 15);
  const runs: FleetFigures[] = [];
  for (const slots of sizes) {
    const speedup = values.speedup !== undefined ? positive('speedup', values.speedup) : Number(((rate * meanReal) / slots).toPrecision(3));
    const meanRun = meanReal / speedup;
    // The staggered start runs at the steady rate at once; groups (decided at their slowest
    // rollout) and the learner's held results fill over about one to two mean episodes.
    const warmupS = values.warmup !== undefined ? positive('warmup', values.warmup) : Math.min(600, Math.max(20, 1.5 * meanRun));
    const actors = Math.max(1, Math.ceil(slots / actorsPer));
    process.stderr.write(`bench fleet: ${slots} slots on ${actors} synthetic actors, time scale ${speedup} (${speedup < 1 ? 'dilated' : speedup > 1 ? 'compressed' : 'real time'}: mean episode ~${meanRun.toFixed(1)} s as run, ~${meanReal.toFixed(1)} s real), warm-up ${warmupS.toFixed(0)} s\n`);
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
      // An update per roundShare × slots trajectories (groups of 5). The default 0.45 is the
      // paper's ratio (8 groups × 5 = 40 trajectories per update at 80–100 rollouts in flight):
      // at 8000 slots no result goes stale. A quarter of that (slots/8) makes a mean episode span
      // ~8 updates, and about half the results come back too many versions late and are run again
      // (docs/sizing.md §4, staleness).
      groupsPerRound: Math.max(8, Math.ceil((roundShare * slots) / 5)),
      staggered: true,
      meanRealEpisodeS: meanReal,
      runId: `bench-fleet-${slots}`,
      env,
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
    speedup: last.speedup,
    overhead_pct: last.overhead_pct,
    overhead_pct_real: last.overhead_pct_real,
    traj_per_s: last.traj_per_s,
    learner_rss_mib: last.learner_rss_mib,
    lost: runs.reduce((a, r) => a + r.lost, 0),
    dup: runs.reduce((a, r) => a + r.dup, 0),
  };
}

// The defaults `owrl demo` adds to examples/demo.yaml (a module of its own, so that the CLI reads
// them without loading the run's stack).

/**
 * Rounds of a demo without --rounds (or OWRL_DEMO_ROUNDS), each recipe sized to about ten minutes
 * of RL on 2 cores where it was measured: 20 rounds after the warm-up; 40 from the uniform pointer
 * policy (--no-warmup), which needs the rounds and whose rounds are quicker: 20.5 s a round on the
 * quiet machine with the full Chromium (20 rounds in 410 s, against 626 s for the warm-up and 20
 * rounds), and about 0.62 of that with the headless shell the demo's actors use when it is
 * installed (the same three rounds in 136.6 s against 221.2 s), so 40 rounds count as about 510 s
 * of the reference's 584 s (28 before the shell). From the uniform policy 20 rounds gained +0.28
 * success on the four-site mix, 28 gained +0.20 to +0.52 over five seeds (mean +0.34), and 40
 * gained +0.511 and +0.378 on the two seeds (2 and 4) that 28 rounds took to +0.322 and +0.200
 * (README, Benchmarks, `learning`). A model behind an endpoint (--policy openai) keeps 20: its rounds are
 * the model's time, not this machine's.
 */
export const DEMO_ROUNDS = { afterWarmup: 20, fromUniform: 40 } as const;

/** The default round count of a demo (DEMO_ROUNDS). */
export function defaultDemoRounds(o: { warmup: boolean; policy: 'pointer' | 'openai' }): number {
  return o.policy === 'pointer' && !o.warmup ? DEMO_ROUNDS.fromUniform : DEMO_ROUNDS.afterWarmup;
}

/**
 * The default --timeout of a demo of `rounds` rounds: 1800 s, or 90 s a round when that is longer
 * (the 20-round demo from the uniform policy took 1307 s, 65 s a round, on 2 cores under heavy
 * load), so that 40 rounds are not cut off where 20 rounds finished.
 */
export function defaultDemoTimeoutS(rounds: number): number {
  return Math.max(1800, rounds * 90);
}

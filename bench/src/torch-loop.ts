// torch-loop: the language-model loop across processes on a real model (packages/testkit/src/
// torch-loop.ts): the learner with owrl's reference PyTorch trainer (python3 -m owrl_torch.serve)
// as OWRL_TRAINER, an actor with the openai backend against the Python engine double serving the
// same tiny chat model over vLLM's API (processed log-probs at temperature 0.7), the judge, real nats-server and Chromium. Figures from the trainer's
// stored answers (TrainResult.off_policy, train_s) and the engine's counts (/owrl/stats):
// updates, adapter loads (one per version), the engine/trainer log-prob gap over the tokens
// sampled at each update's base version (max and mean; target ≤ 1e-4), the smallest effective
// sample size of the importance weights, the trainer's wall time per update, the
// positive-advantage log-prob gain per update and its mean (> 0: it learns), and whether the loop's three
// checks (parity, learning, one load per version in order) pass.
//   npm run bench -- torch-loop [--rounds N] [--group-size N]
import { learningCheck, logprobParity, startTorchLoop, versionCheck } from '@owrl/testkit';

function arg(args: string[], name: string, def: number): number {
  const i = args.indexOf(name);
  const v = i >= 0 ? Number(args[i + 1]) : def;
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
}

const round = (x: number, digits: number) => (Number.isFinite(x) ? Number(x.toPrecision(digits)) : null);

export async function torchLoopBench(args: string[]): Promise<Record<string, unknown>> {
  const rounds = arg(args, '--rounds', 3);
  const groupSize = arg(args, '--group-size', 5);
  process.stderr.write(`torch-loop: ${rounds} rounds (group ${groupSize}) with the torch trainer and the engine double on the tiny model\n`);
  const t0 = Date.now();
  await using loop = await startTorchLoop({ rounds, groupSize, slots: groupSize });
  const state = await loop.finished(20 * 60_000);
  const results = loop.results();
  const stats = await loop.engineStats();
  const wallS = (Date.now() - t0) / 1000;
  const parity = logprobParity(results);
  const learning = learningCheck(results);
  const versions = versionCheck(stats, results);
  const ess = results.map((r) => r.offPolicy?.ess ?? NaN).filter((x) => Number.isFinite(x));
  const stepMs = results.map((r) => r.trainS * 1000);
  const requests = stats.request_models.length;
  const figures = {
    bench: 'torch-loop',
    updates: results.length,
    adapter_loads: Object.values(stats.loads).reduce((a, b) => a + b, 0),
    logprob_parity_max_abs: round(parity.maxAbs, 3),
    logprob_parity_mean_abs: round(parity.meanAbs, 3),
    parity_tokens: parity.tokens,
    ess_min: ess.length > 0 ? round(Math.min(...ess), 4) : null,
    trainer_step_ms: stepMs.length > 0 ? Math.round(stepMs.reduce((a, b) => a + b, 0) / stepMs.length) : null,
    positive_logprob_gain_mean: round(learning.meanGain, 3),
    positive_logprob_gain_per_update: learning.gains.map((g) => round(g, 3)),
    policy_version: Number(state.policyVersion),
    rounds,
    requests,
    engine_ms_per_request: requests > 0 ? Math.round(stats.compute_ms / requests) : null,
    checks: { parity: parity.ok, learning: learning.ok, versions: versions.ok },
    wall_s: Math.round(wallS),
  };
  process.stderr.write(
    `torch-loop: ${figures.updates} updates, ${figures.adapter_loads} adapter loads; parity max ${figures.logprob_parity_max_abs} mean ${figures.logprob_parity_mean_abs} over ${figures.parity_tokens} tokens; ESS min ${figures.ess_min}; ${figures.trainer_step_ms} ms per update; gain mean ${figures.positive_logprob_gain_mean}; checks ${JSON.stringify(figures.checks)} (${figures.wall_s} s)\n`,
  );
  for (const r of [parity, learning, versions]) if (!r.ok) process.stderr.write(`torch-loop: check failed: ${r.problem}\n`);
  return figures;
}

// The learner's RL series as Prometheus serves them: a real GrpoTrainer update recorded through
// the injected meter (prom-client binding), read back from /metrics over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PointerModel, toCsr } from '@owrl/policy';
import { make, OffPolicyStatSchema, RoundSummarySchema } from '@owrl/proto';
import { Adam, GrpoTrainer } from '@owrl/rl';
import { PromMeter, startMetricsServer } from '@owrl/telemetry';
import { createLearnerMetrics } from '../src/metrics.js';
import { recordOffPolicy, recordUpdateHealth } from '../src/update-health.js';

function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  assert.ok(line, `series ${series} in /metrics`);
  return Number(line.slice(series.length + 1));
}

void test('RL series with units: update health per epoch, reward, staleness, update / weight-sync / queue-lag seconds', async () => {
  const meter = new PromMeter('learner', { defaultMetrics: false });
  const m = createLearnerMetrics(meter);
  const model = new PointerModel({ dim: 4 });
  const csr = toCsr([
    { index: Uint32Array.of(0), value: Float32Array.of(1) },
    { index: Uint32Array.of(1), value: Float32Array.of(1) },
  ]);
  const step = (c: number) => ({ ...csr, chosen: c, logprob: model.logProbs(csr)[c] ?? 0, temperature: 1 });
  const u = new GrpoTrainer(model, new Adam(4, { lr: 2 }), { epochs: 2, minibatches: 1, trustKl: 0.01 }).update([
    { rewards: [1, 0, 0, 1], trajectories: [{ steps: [step(1), step(1)] }, { steps: [step(0)] }, { steps: [step(0), step(0)] }, { steps: [step(1)] }] },
  ]);
  const summary = make(RoundSummarySchema, {});
  recordUpdateHealth(summary, u.epochs, m);
  assert.equal(summary.epochs.length, 2);
  assert.equal(summary.clipFraction, u.epochs[1]?.clipFraction);
  m.rewardMean.set(0.4);
  m.groups.inc({ fate: 'kept' });
  m.groups.inc({ fate: 'dropped_all_zero' }, 3);
  m.staleness.observe(0);
  m.staleness.observe(2);
  m.updateSeconds.observe(0.03);
  m.weightSyncSeconds.observe(0.2);
  m.queueLagSeconds.observe(12);

  const srv = await startMetricsServer(meter, { port: 0, host: '127.0.0.1' });
  try {
    const text = await (await fetch(`http://127.0.0.1:${srv.port}/metrics`)).text();
    const lbl = (e: number) => `{epoch="${e}",service="learner"}`;
    assert.equal(value(text, `owrl_learner_update_mean_ratio${lbl(1)}`), 1);
    assert.equal(value(text, `owrl_learner_update_approx_kl_nats${lbl(1)}`), 0);
    assert.ok(value(text, `owrl_learner_update_approx_kl_nats${lbl(2)}`) > 0);
    assert.ok(value(text, `owrl_learner_update_approx_kl_nats${lbl(2)}`) <= 0.01 + 1e-9, 'inside the trust region');
    assert.equal(value(text, `owrl_learner_update_clip_fraction_ratio${lbl(2)}`), u.epochs[1]?.clipFraction);
    assert.ok(value(text, `owrl_learner_update_grad_norm${lbl(1)}`) > 0);
    assert.ok(value(text, `owrl_learner_update_learning_rate${lbl(1)}`) < 2, 'the trust region shortened the step');
    assert.ok(value(text, 'owrl_learner_trust_region_backtracks_total{service="learner"}') >= 1);
    assert.equal(value(text, 'owrl_learner_last_epoch_clip_fraction_ratio_count{service="learner"}'), 1);
    assert.equal(value(text, 'owrl_learner_reward_mean{service="learner"}'), 0.4);
    assert.equal(value(text, 'owrl_learner_groups_total{fate="dropped_all_zero",service="learner"}'), 3);
    assert.equal(value(text, 'owrl_learner_staleness_versions_bucket{le="0",service="learner"}'), 1);
    assert.equal(value(text, 'owrl_learner_staleness_versions_count{service="learner"}'), 2);
    assert.equal(value(text, 'owrl_learner_update_seconds_sum{service="learner"}'), 0.03);
    assert.equal(value(text, 'owrl_learner_weight_sync_seconds_count{service="learner"}'), 1);
    assert.equal(value(text, 'owrl_learner_queue_lag_seconds_bucket{le="20",service="learner"}'), 1);
    // Every owrl series has its help and type.
    const names = new Set(text.split('\n').filter((l) => l.startsWith('# TYPE owrl_')).map((l) => l.split(' ')[2]));
    for (const n of names) assert.match(text, new RegExp(`# HELP ${n} \\S`), `help of ${n}`);
    assert.ok(names.size >= 20, `${names.size} series`);
  } finally {
    await srv.close();
  }
});

void test("a token trainer's off-policy figures land in the round summary and the metrics", async () => {
  const meter = new PromMeter('learner', { defaultMetrics: false });
  const m = createLearnerMetrics(meter);
  const summary = make(RoundSummarySchema, {});
  const op = make(OffPolicyStatSchema, { parityTokens: 40n, logprobGapMaxAbs: 3e-5, logprobGapMeanAbs: 1e-6, ess: 0.97, truncatedTokens: 2n, correction: 'tis', positiveLogprobGain: 0.05 });
  recordOffPolicy(summary, op, m);
  recordOffPolicy(summary, make(OffPolicyStatSchema, { ...op, truncatedTokens: 3n, ess: 0.9 }), m);
  assert.equal(summary.offPolicy?.correction, 'tis');
  assert.equal(summary.offPolicy?.ess, 0.9, 'the summary holds the latest update');
  const srv = await startMetricsServer(meter, { port: 0, host: '127.0.0.1' });
  try {
    const text = await (await fetch(`http://127.0.0.1:${srv.port}/metrics`)).text();
    assert.equal(value(text, 'owrl_learner_update_logprob_gap_max_nats{service="learner"}'), 3e-5);
    assert.equal(value(text, 'owrl_learner_update_logprob_gap_mean_nats{service="learner"}'), 1e-6);
    assert.equal(value(text, 'owrl_learner_update_ess_ratio{service="learner"}'), 0.9);
    assert.equal(value(text, 'owrl_learner_update_truncated_tokens_total{service="learner"}'), 5, 'truncated tokens add up over updates');
    assert.equal(value(text, 'owrl_learner_update_positive_logprob_gain_nats{service="learner"}'), 0.05);
  } finally {
    await srv.close();
  }
});

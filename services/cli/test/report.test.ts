// The run report groups exclusions by whom their cause is attributed to (the fault of the
// termination reason, @owrl/core), expectations written by hand; it writes SVG plots and HTML.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DifficultyStatSchema, EpochStatSchema, FailureRulesSchema, make, RoundSummarySchema, RunCountersSchema, RunStateSchema, SuiteStatSchema, TrainHyperparamsSchema } from '@owrl/proto';
import { buildReport, excludedByFault, exclusionFault, writeReport } from '../src/run/report.js';

void test('exclusions are attributed to the site, the network, our side, the task, a skip or the judge', () => {
  assert.equal(exclusionFault('init_error:dns'), 'site');
  assert.equal(exclusionFault('env_error:bot_wall'), 'site');
  assert.equal(exclusionFault('env_error:step_timeout'), 'uncertain');
  assert.equal(exclusionFault('sandbox_error:browser_crash'), 'ours');
  assert.equal(exclusionFault('init_error:bad_url'), 'task');
  assert.equal(exclusionFault('init_error:host_blacklisted'), 'skip');
  assert.equal(exclusionFault('judge:verifier_unavailable'), 'judge');
  assert.equal(exclusionFault('whatever'), 'other');
  assert.deepEqual(
    excludedByFault({ 'init_error:dns': 3, 'env_error:http_5xx': 2, 'sandbox_error:policy_timeout': 4, 'judge:no_verdict_source': 1, 'env_error:page_crash': 1 }),
    { site: 5, ours: 4, judge: 1, uncertain: 1 },
  );
  assert.deepEqual(Object.keys(excludedByFault({ 'init_error:dns': 3, 'env_error:http_5xx': 2, 'sandbox_error:policy_timeout': 4, 'judge:no_verdict_source': 1, 'env_error:page_crash': 1 })), ['site', 'ours', 'judge', 'uncertain']);
});

void test('the report shows the update rule, update health per PPO epoch and the last epoch clip fraction', () => {
  const epoch = (e: number, clip: number) => make(EpochStatSchema, { epoch: e, loss: -0.1 * e, clipFraction: clip, approxKl: 0.01 * (e - 1), gradNorm: 2, meanRatio: e === 1 ? 1 : 1.05, learningRate: 0.05, actions: 40n });
  const s = make(RunStateSchema, {
    runId: 'r',
    update: make(TrainHyperparamsSchema, { ppoEpochs: 1, minibatches: 6, clipLow: 0.2, clipHigh: 0.28, learningRate: 0.05, trustKl: 0.1 }),
    rounds: [
      make(RoundSummarySchema, { round: 0n, successRate: 0.1, epochs: [epoch(1, 0), epoch(2, 0.2)] }),
      make(RoundSummarySchema, { round: 1n, successRate: 0.2 }),
      make(RoundSummarySchema, { round: 2n, successRate: 0.3, epochs: [epoch(1, 0), epoch(2, 0.4)] }),
    ],
  });
  const r = buildReport(s, 1);
  assert.deepEqual(r.update_health.map((h) => h.round), [1, 3]);
  assert.deepEqual(r.update_health[1]?.epochs.map((e) => e.clip_fraction), [0, 0.4]);
  assert.equal(r.update_health[0]?.epochs[0]?.mean_ratio, 1);
  assert.deepEqual(r.last_epoch_clip, { mean: 0.3, max: 0.4 });
  assert.deepEqual(r.update_rule, { ppo_epochs: 1, minibatches: 6, clip_low: 0.2, clip_high: 0.28, learning_rate: 0.05, trust_kl: 0.1 });
  assert.equal(buildReport(make(RunStateSchema, { runId: 'r' }), 1).update_rule, null, 'a learner that does not say');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-report-'));
  try {
    const md = fs.readFileSync(writeReport(dir, r).markdown, 'utf8');
    assert.match(md, /Update rule: 1 epoch\(s\) × 6 minibatch\(es\), one Adam step each \(lr 0\.05\), clip 0\.2\/0\.28, KL trust region 0\.1 per minibatch\./);
    assert.match(md, /Clip fraction of the last epoch: mean 30\.0 %, max 40\.0 %/);
    assert.match(md, /\| 3 \| 2 \| -0\.2 \| 40\.0 % \| 0\.01 \| 2 \| 1\.05 \| 0\.05 \|/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('the report shows the failure rules of the run and what they decided', () => {
  const s = make(RunStateSchema, {
    runId: 'r',
    failureRules: make(FailureRulesSchema, { timeoutBlame: 'timings', timeoutPolicyShare: 0.5, maxAttempts: 3, exhaustedGroups: 'drop' }),
    counters: make(RunCountersSchema, { timeoutsPolicy: 4n, timeoutsSite: 7n, groupsExhausted: 2n }),
  });
  const r = buildReport(s, 1);
  assert.deepEqual(r.failure_rules, { timeout_blame: 'timings', timeout_policy_share: 0.5, max_attempts: 3, exhausted_groups: 'drop', timeouts_policy: 4, timeouts_site: 7, groups_exhausted: 2 });
  assert.equal(buildReport(make(RunStateSchema, { runId: 'r' }), 1).failure_rules, null);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-report-'));
  try {
    const md = fs.readFileSync(writeReport(dir, r).markdown, 'utf8');
    assert.match(
      md,
      /Failure rules: a task timeout is the policy's when it spent at least 50 % of the episode's wall time deciding \(scored 0 and trained\), else the site's \(excluded and re-dispatched\); a sample gets 3 attempt\(s\), and a group one of whose samples spends them is dropped whole \(drop\)\. This run: 4 timeout\(s\) blamed on the policy, 7 on the site, 2 group\(s\) dropped for a spent budget\./,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

void test('the report writes SVG plots and an HTML version next to report.md, from the rounds', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-report-'));
  try {
    const state = make(RunStateSchema, {
      runId: 'r1',
      policyVersion: 2n,
      terminations: { COMPLETED: 6n, STEP_BUDGET_EXHAUSTED: 6n },
      rounds: [1, 2, 3].map((n) =>
        make(RoundSummarySchema, {
          round: BigInt(n),
          episodes: 4,
          successes: n - 1,
          successRate: (n - 1) / 4,
          terminations: { COMPLETED: n, STEP_BUDGET_EXHAUSTED: 4 - n, ENV_ERROR: n === 2 ? 1 : 0 },
          byDifficulty: [make(DifficultyStatSchema, { difficulty: 1, episodes: 2, successes: n - 1 })],
          bySuite: [make(SuiteStatSchema, { suite: 'shop', episodes: 4, successes: n - 1 })],
        }),
      ),
    });
    const report = buildReport(state, 10);
    assert.deepEqual(report.per_round.map((d) => [d.round, d.success, d.terminations['COMPLETED']]), [[1, 0, 1], [2, 0.25, 2], [3, 0.5, 3]]);
    const files = writeReport(dir, report);
    assert.deepEqual(files.charts.map((f) => path.basename(f)), ['learning-curve.svg', 'success-by-difficulty.svg', 'success-by-site.svg', 'terminations.svg']);
    const curve = fs.readFileSync(path.join(dir, 'learning-curve.svg'), 'utf8');
    assert.match(curve, /^<svg /);
    assert.equal((curve.match(/<path class="series" data-series="(all|shop)"/g) ?? []).length, 2, 'overall and per-site lines');
    assert.equal((curve.match(/<circle /g) ?? []).length, 6);
    const terms = fs.readFileSync(path.join(dir, 'terminations.svg'), 'utf8');
    assert.equal((terms.match(/data-series="ENV_ERROR"/g) ?? []).length, 1, 'one ENV_ERROR bar, in round 2');
    const md = fs.readFileSync(files.markdown, 'utf8');
    assert.match(md, /!\[learning curve\]\(learning-curve\.svg\)/);
    const html = fs.readFileSync(files.html, 'utf8');
    assert.match(html, /^<!doctype html>/);
    assert.equal((html.match(/<svg /g) ?? []).length, 4, 'the four plots inline');
    assert.match(html, /<h2>Terminations<\/h2>/);
    assert.match(html, /<td>COMPLETED<\/td><td>6<\/td>/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The run report groups exclusions by whom their cause is attributed to (the fault of the
// termination reason, @owrl/core), expectations written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EpochStatSchema, make as mk, RoundSummarySchema, RunStateSchema } from '@owrl/proto';
import { buildReport as build, excludedByFault, exclusionFault, writeReport as write } from '../src/demo/report.js';

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

void test('the report shows update health per PPO epoch and the last epoch clip fraction', () => {
  const epoch = (e: number, clip: number) => mk(EpochStatSchema, { epoch: e, loss: -0.1 * e, clipFraction: clip, approxKl: 0.01 * (e - 1), gradNorm: 2, meanRatio: e === 1 ? 1 : 1.05, learningRate: 0.05, actions: 40n });
  const s = mk(RunStateSchema, {
    runId: 'r',
    rounds: [
      mk(RoundSummarySchema, { round: 0n, successRate: 0.1, epochs: [epoch(1, 0), epoch(2, 0.2)] }),
      mk(RoundSummarySchema, { round: 1n, successRate: 0.2 }),
      mk(RoundSummarySchema, { round: 2n, successRate: 0.3, epochs: [epoch(1, 0), epoch(2, 0.4)] }),
    ],
  });
  const r = build(s, 1);
  assert.deepEqual(r.update_health.map((h) => h.round), [1, 3]);
  assert.deepEqual(r.update_health[1]?.epochs.map((e) => e.clip_fraction), [0, 0.4]);
  assert.equal(r.update_health[0]?.epochs[0]?.mean_ratio, 1);
  assert.deepEqual(r.last_epoch_clip, { mean: 0.3, max: 0.4 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-report-'));
  try {
    const md = fs.readFileSync(write(dir, r).markdown, 'utf8');
    assert.match(md, /Clip fraction of the last epoch: mean 30\.0 %, max 40\.0 %/);
    assert.match(md, /\| 3 \| 2 \| -0\.2 \| 40\.0 % \| 0\.01 \| 2 \| 1\.05 \| 0\.05 \|/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

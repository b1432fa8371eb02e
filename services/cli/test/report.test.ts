// The run report groups exclusions by whom their cause is attributed to (the fault of the
// termination reason, @owrl/core), expectations written by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { excludedByFault, exclusionFault } from '../src/demo/report.js';

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

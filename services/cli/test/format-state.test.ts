// `owrl status` states the run's failure rules and what they decided, next to its counters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureRulesSchema, make, RunCountersSchema, RunStateSchema } from '@owrl/proto';
import { formatState } from '../src/format.js';

void test('the status shows the failure rules and their counts', () => {
  const s = make(RunStateSchema, {
    runId: 'r',
    failureRules: make(FailureRulesSchema, { timeoutBlame: 'timings', timeoutPolicyShare: 0.5, maxAttempts: 3, exhaustedGroups: 'drop' }),
    counters: make(RunCountersSchema, { timeoutsPolicy: 2n, timeoutsSite: 5n, groupsExhausted: 1n, samplesNotSent: 4n, samplesRefused: 0n }),
  });
  assert.match(
    formatState(s),
    /failure rules: timeouts blamed by timings \(policy from 50% of the wall time\), 3 attempt\(s\) a sample, spent budget: drop group {2}-> timeouts policy 2 site 5 {2}groups exhausted 1 {2}samples not sent 4 refused 0/,
  );
  assert.doesNotMatch(formatState(make(RunStateSchema, { runId: 'r' })), /failure rules/);
});

// `owrl status` states the run's failure rules and what they decided, next to its counters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FailureRulesSchema, make, OffPolicyStatSchema, RoundSummarySchema, RunCountersSchema, RunStateSchema } from '@owrl/proto';
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

void test("the status shows the latest update's engine/trainer log-prob gap and effective sample size", () => {
  const op = make(OffPolicyStatSchema, { parityTokens: 120n, logprobGapMaxAbs: 4.2e-5, logprobGapMeanAbs: 3e-6, ess: 0.991, truncatedTokens: 1n, correction: 'tis', positiveLogprobGain: 0.0312 });
  const s = make(RunStateSchema, { runId: 'r', rounds: [make(RoundSummarySchema, { round: 0n, offPolicy: op }), make(RoundSummarySchema, { round: 1n })] });
  assert.match(formatState(s), /off-policy \(latest update\): engine\/trainer log-prob gap max 4\.20e-5 mean 3\.00e-6 over 120 tokens {2}ESS 0\.991 {2}tis truncated 1 {2}positive-advantage gain 0\.0312 nats/);
  assert.doesNotMatch(formatState(make(RunStateSchema, { runId: 'r', rounds: [make(RoundSummarySchema, {})] })), /off-policy/);
});

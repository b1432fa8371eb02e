// The failure rules: a task timeout is blamed from the episode's own timings (policy time against
// the rest of its wall time), a spent re-dispatch budget drops the whole group, and an episode
// whose engine cannot record token traces ends the run. The blame on hand-made timings first, then
// a learner against a real nats-server with a stand-in judge that answers chosen slots with
// timeouts: the one the policy caused is trained at reward 0, the one the site caused is
// re-dispatched until its budget is spent and its group dropped, all counted in the run state.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONSUMER_ACTORS, connectBus, ensureTopology, scoredSubject, STREAM_TASKS, type Bus } from '@owrl/bus';
import { ConfigError } from '@owrl/core';
import {
  DiagnosticsSchema,
  make,
  RolloutRequestSchema,
  ScoredTrajectorySchema,
  StepTimingSchema,
  TerminationClass,
  TerminationSchema,
  TrajectorySchema,
  VerdictSchema,
  VerdictSource,
  type RolloutRequest,
  type ScoredTrajectory,
} from '@owrl/proto';
import { startNatsServer, waitUntil, type NatsServer } from '@owrl/testkit';
import { loadLearnerConfig } from '../src/config.js';
import { FatalRunError } from '../src/errors.js';
import { applyTimeoutRule, blameTimeout, engineIncompatible, type FailureRules } from '../src/failure-rules.js';
import { RunStateStore } from '../src/run-state-store.js';
import { TaskScheduler } from '../src/scheduler.js';
import { siteTasks, startTestLearner, testLearnerConfig } from './learner-fixture.js';

const RULES: FailureRules = { timeoutBlame: 'timings', timeoutPolicyShare: 0.5, maxAttempts: 3, exhaustedGroups: 'drop' };

/** A result as the judge sends it for an episode that ended `reason` after `wallMs`, `policyMs` of them deciding. */
function timedOut(req: RolloutRequest | undefined, policyMs: number, wallMs: number, reason = 'task_timeout', cls = TerminationClass.ENV_ERROR, message = ''): ScoredTrajectory {
  const id = req?.trajectoryId ?? 'r/0/0/0/0/1';
  return make(ScoredTrajectorySchema, {
    trajectoryId: id,
    trainable: false,
    excludedReason: `${TerminationClass[cls]?.toLowerCase()}:${reason}`,
    trajectory: make(TrajectorySchema, {
      trajectoryId: id,
      actorId: 'actor-1',
      ...(req ? { request: req, policyVersion: req.policyVersion } : {}),
      termination: make(TerminationSchema, { class: cls, reason, message }),
      diagnostics: make(DiagnosticsSchema, { wallMs, latencyTotal: make(StepTimingSchema, { policyMs, actionMs: (wallMs - policyMs) / 2, settleMs: (wallMs - policyMs) / 4 }) }),
    }),
  });
}

void describe('failure rules (pure)', () => {
  void it('blames a timeout on the policy from half of the wall time on, else on the site', () => {
    assert.deepEqual(blameTimeout(timedOut(undefined, 450_000, 600_000), RULES), { blame: 'policy', policyShare: 0.75, wallMs: 600_000 });
    assert.deepEqual(blameTimeout(timedOut(undefined, 300_000, 600_000), RULES), { blame: 'policy', policyShare: 0.5, wallMs: 600_000 });
    assert.deepEqual(blameTimeout(timedOut(undefined, 120_000, 600_000), RULES), { blame: 'site', policyShare: 0.2, wallMs: 600_000 });
    assert.equal(blameTimeout(timedOut(undefined, 120_000, 600_000), { ...RULES, timeoutBlame: 'policy' }).blame, 'policy');
    assert.equal(blameTimeout(timedOut(undefined, 590_000, 600_000), { ...RULES, timeoutBlame: 'site' }).blame, 'site');
  });

  void it('a timeout blamed on the policy becomes a trainable failure with the reason in its verdict; others are left as they are', () => {
    const st = timedOut(undefined, 480_000, 600_000);
    assert.equal(applyTimeoutRule(st, RULES), 'policy');
    assert.deepEqual([st.trainable, st.excludedReason, st.verdict?.reward, st.verdict?.success, st.verdict?.source], [true, '', 0, false, VerdictSource.RULE]);
    assert.match(st.verdict?.detail ?? '', /task timeout blamed on the policy: 80 % of the episode's 600 s was spent deciding \(rule timings, from 50 %\)/);
    const site = timedOut(undefined, 60_000, 600_000);
    assert.equal(applyTimeoutRule(site, RULES), 'site');
    assert.deepEqual([site.trainable, site.excludedReason], [false, 'env_error:task_timeout']);
    const dns = timedOut(undefined, 590_000, 600_000, 'dns', TerminationClass.INIT_ERROR);
    assert.equal(applyTimeoutRule(dns, RULES), undefined);
    assert.equal(dns.trainable, false);
  });

  void it('an episode whose engine cannot record token traces is the end of the run', () => {
    const st = timedOut(undefined, 10, 100, 'engine_incompatible', TerminationClass.SANDBOX_ERROR, 'completion_token_ids: none; run vLLM 0.10.2 or later');
    assert.match(engineIncompatible(st) ?? '', /the serving engine cannot record token-level traces.*actor actor-1.*completion_token_ids: none; run vLLM 0\.10\.2 or later/);
    assert.equal(engineIncompatible(timedOut(undefined, 10, 100)), undefined);
  });

  void it('reads the rules from the environment, naming a bad setting', () => {
    const base = { OWRL_RUN_ID: 'r', OWRL_TASKS_FILE: 't.jsonl' };
    assert.deepEqual(loadLearnerConfig(base).failureRules, { timeoutBlame: 'timings', timeoutPolicyShare: 0.5, maxAttempts: 3, exhaustedGroups: 'drop' });
    assert.deepEqual(loadLearnerConfig({ ...base, OWRL_TIMEOUT_BLAME: 'site', OWRL_TIMEOUT_POLICY_SHARE: '0.8', OWRL_MAX_ATTEMPTS: '5' }).failureRules, { timeoutBlame: 'site', timeoutPolicyShare: 0.8, maxAttempts: 5, exhaustedGroups: 'drop' });
    const bad = (env: Record<string, string>, variable: string, msg: RegExp) =>
      assert.throws(() => loadLearnerConfig({ ...base, ...env }), (e: unknown) => e instanceof ConfigError && e.variable === variable && msg.test(e.message));
    bad({ OWRL_TIMEOUT_BLAME: 'nobody' }, 'OWRL_TIMEOUT_BLAME', /must be timings/);
    bad({ OWRL_TIMEOUT_POLICY_SHARE: '1.5' }, 'OWRL_TIMEOUT_POLICY_SHARE', /within \(0, 1\]/);
    bad({ OWRL_EXHAUSTED_GROUPS: 'keep' }, 'OWRL_EXHAUSTED_GROUPS', /the only rule is drop/);
  });
});

void describe('failure rules in a run', () => {
  let nats: NatsServer;
  let bus: Bus;
  before(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ servers: nats.url, name: 'learner-failure-rules-test' });
    await ensureTopology(bus, { storage: 'memory' });
  });
  after(async () => {
    await bus?.close();
    await nats?.dispose();
  });

  /** Answers the run's requests as actors and judge would, the result chosen per request. */
  async function judge(runId: string, answer: (req: RolloutRequest) => ScoredTrajectory) {
    return bus.consume({
      stream: STREAM_TASKS,
      consumer: CONSUMER_ACTORS,
      schema: RolloutRequestSchema,
      maxInFlight: 8,
      pullExpiresMs: 1000,
      handler: async (d) => {
        const out = answer(d.value);
        await bus.publish(scoredSubject(runId), ScoredTrajectorySchema, out, { msgId: `${d.value.trajectoryId}` });
      },
    });
  }
  const completed = (req: RolloutRequest) =>
    make(ScoredTrajectorySchema, {
      trajectoryId: req.trajectoryId,
      trajectory: make(TrajectorySchema, { trajectoryId: req.trajectoryId, request: req, policyVersion: req.policyVersion, termination: make(TerminationSchema, { class: TerminationClass.COMPLETED, reason: 'done' }) }),
      trainable: true,
      verdict: make(VerdictSchema, { reward: 1, success: true }),
    });

  void it("a policy's timeout trains at reward 0; a site's is re-dispatched until its budget is spent, and its group is dropped whole", { timeout: 60_000 }, async () => {
    const runId = 'failrules';
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-failrules-'));
    const config = testLearnerConfig(runId, dataDir, { OWRL_ROUNDS: '1', OWRL_GROUP_SIZE: '2', OWRL_GROUPS_PER_ROUND: '2', OWRL_MAX_GROUPS_PER_ROUND: '2', OWRL_MAX_ATTEMPTS: '2', OWRL_ROUND_TIMEOUT_S: '30' });
    const store = new RunStateStore(runId, 1, 'sync');
    const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(siteTasks(4), { seed: 1 }), store, dataDir });
    // group 0 sample 0: the policy decided for 9 of the 10 minutes; group 1 sample 0: pages took 9 of 10, every attempt
    const worker = await judge(runId, (req) => {
      if (req.sample !== 0) return completed(req);
      return req.group === 0 ? timedOut(req, 540_000, 600_000) : timedOut(req, 60_000, 600_000);
    });
    try {
      await learner.run();
      const s = store.get();
      const c = s.counters!;
      assert.deepEqual(
        [c.timeoutsPolicy, c.timeoutsSite, c.groupsKept, c.groupsAbandoned, c.groupsExhausted, c.trainable, c.excluded, c.redispatched, c.dispatched],
        [1n, 2n, 1n, 1n, 1n, 3n, 2n, 1n, 5n],
      );
      const r = s.rounds[0];
      assert.deepEqual([r?.timeoutsPolicy, r?.timeoutsSite, r?.groupsExhausted, r?.groupsKept, r?.episodes], [1, 2, 1, 1, 3]);
      assert.deepEqual([s.failureRules?.timeoutBlame, s.failureRules?.timeoutPolicyShare, s.failureRules?.maxAttempts, s.failureRules?.exhaustedGroups], ['timings', 0.5, 2, 'drop']);
      assert.equal(s.excluded['env_error:task_timeout'], 2n);
      assert.equal(c.updates, 1n, 'the kept group, with its timed-out sample at reward 0, was trained');
    } finally {
      await learner.stop();
      await worker.stop();
      await artifacts.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  void it('an episode whose engine cannot record token traces fails the run with the reason, at once', { timeout: 60_000 }, async () => {
    const runId = 'incompatible';
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-incompatible-'));
    const config = testLearnerConfig(runId, dataDir, { OWRL_ROUNDS: '2', OWRL_GROUP_SIZE: '2', OWRL_GROUPS_PER_ROUND: '2', OWRL_ROUND_TIMEOUT_S: '30' });
    const store = new RunStateStore(runId, 1, 'sync');
    const { learner, artifacts } = await startTestLearner({ bus, config, scheduler: new TaskScheduler(siteTasks(4), { seed: 1 }), store, dataDir });
    const worker = await judge(runId, (req) =>
      req.group === 1 && req.sample === 1
        ? timedOut(req, 10, 900, 'engine_incompatible', TerminationClass.SANDBOX_ERROR, 'completion_token_ids: the vllm answer carries no completion token ids; run vLLM 0.10.2 or later')
        : completed(req),
    );
    try {
      const e = await learner.run().then(
        () => assert.fail('the run went on'),
        (err: unknown) => err,
      );
      assert.ok(e instanceof FatalRunError);
      assert.equal(e.code, 'ENGINE_INCOMPATIBLE');
      assert.match(e.message, /cannot record token-level traces.*run vLLM 0\.10\.2 or later/);
      await waitUntil('the round saved', () => (store.get().counters?.excluded === 1n ? true : undefined), { timeoutMs: 5000 });
      assert.equal(store.get().counters?.updates, 0n, 'nothing was trained');
    } finally {
      await learner.stop();
      await worker.stop();
      await artifacts.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

// Two runs on one JetStream: each learner consumer is filtered on its own run's scored subject,
// so neither sees (nor acks) the other's scored trajectories, and held messages come back after
// ack_wait (what a restarted learner relies on), with no limit on deliveries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { make, ScoredTrajectorySchema } from '@owrl/proto';
import { ensureLearnerConsumer, ensureTopology, learnerConsumer, learnerConsumerName, scoredSubject, STREAM_SCORED, type Delivery } from '../src/index.js';
import { deferred, startSuite, within } from './harness.js';

void test('learner consumers of two runs on one server see only their own run', { timeout: 60_000 }, async () => {
  assert.equal(learnerConsumerName('run-a'), 'learner_run-a');
  assert.equal(learnerConsumer('run-a').config.filter_subject, 'owrl.scored.run-a');
  assert.equal(learnerConsumer('run-a').config.max_deliver, -1);
  assert.throws(() => learnerConsumerName('a.b'), /runId "a.b" is not a valid subject token/);
  const s = await startSuite('learner-consumers');
  try {
    await ensureTopology(s.bus, { storage: 'memory' });
    const names = { a: await ensureLearnerConsumer(s.bus, 'run-a', { ackWaitMs: 1000 }), b: await ensureLearnerConsumer(s.bus, 'run-b', { ackWaitMs: 1000 }) };
    for (const run of ['run-a', 'run-b']) {
      for (let i = 0; i < 3; i++) {
        const id = `${run}/0/0/${i}/0`;
        await s.bus.publish(scoredSubject(run), ScoredTrajectorySchema, make(ScoredTrajectorySchema, { trajectoryId: id, trainable: true }), { msgId: id });
      }
    }
    const seen: Record<string, string[]> = { a: [], b: [] };
    const held: Delivery<unknown>[] = [];
    // a's three once, and b's three twice (held, then redelivered after ack_wait)
    const enough = deferred();
    const handles = await Promise.all(
      (['a', 'b'] as const).map((k) =>
        s.bus.consume({
          stream: STREAM_SCORED,
          consumer: names[k],
          schema: ScoredTrajectorySchema,
          maxInFlight: 100,
          autoAck: false,
          workingIntervalMs: 300,
          pullExpiresMs: 1000,
          handler: (d) => {
            seen[k]?.push(d.value.trajectoryId);
            if (k === 'a') void d.ack();
            else held.push(d);
            if (seen.a!.length >= 3 && seen.b!.length >= 6) enough.resolve();
          },
        }),
      ),
    );
    await within(enough.promise, 20_000, "run-a's 3 deliveries and run-b's 6");
    await Promise.all(handles.map((h) => h.stop()));
    assert.deepEqual([...new Set(seen.a)].sort(), ['run-a/0/0/0/0', 'run-a/0/0/1/0', 'run-a/0/0/2/0']);
    assert.equal(seen.a!.length, 3, 'acked messages are not redelivered');
    assert.ok(seen.b!.every((id) => id.startsWith('run-b/')), `run-b saw ${seen.b!.join(', ')}`);
    // Unacked (a learner that died holding them): delivered again after ack_wait.
    assert.ok(seen.b!.length >= 6, `run-b's held messages came back: ${seen.b!.length} deliveries`);
  } finally {
    await s.close();
  }
});

// The actor process moves a rollout request that exhausted its deliveries (one that crashes every
// actor that takes it) to OWRL_DLQ with the reason, and out of the work queue: real nats-server,
// the actor's own main (synthetic episodes: no browser needed for this).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { connectBus, CONSUMER_ACTORS, DlqHeader, DlqReason, ensureTopology, STREAM_TASKS, taskSubject } from '@owrl/bus';
import { make, RolloutRequestSchema, TaskSchema } from '@owrl/proto';
import { awaitDeadLetter, exhaustDeliveries, startNatsServer } from '@owrl/testkit';

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

void test('an exhausted rollout request goes to OWRL_DLQ with the reason and leaves the work queue', async () => {
  const nats = await startNatsServer();
  const bus = await connectBus({ servers: nats.url, name: 'actor-dlq-test' });
  let child: ReturnType<typeof spawn> | undefined;
  try {
    await ensureTopology(bus, { actorsAckWaitMs: 2000 });
    const id = 'runQ/0/0/0/0';
    const r = make(RolloutRequestSchema, { runId: 'runQ', trajectoryId: id, task: make(TaskSchema, { id: 't1', startUrl: 'http://127.0.0.1:1/' }), maxSteps: 3 });
    const pub = await bus.publish(taskSubject('runQ'), RolloutRequestSchema, r, { msgId: id });
    // Every delivery refused until the server gives up on the request (a request that crashes every actor).
    await exhaustDeliveries(bus.js, bus.jsm, STREAM_TASKS, CONSUMER_ACTORS);
    child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, NATS_URL: nats.url, OWRL_ACTORS_ACK_WAIT_S: '2', OWRL_SYNTHETIC: 'true', OWRL_SLOTS: '1', OWRL_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
    const dl = await awaitDeadLetter(bus.jsm, {
      timeoutMs: 90_000,
      abort: () => (child !== undefined && (child.exitCode !== null || child.signalCode !== null) ? new Error(`the actor exited before dead-lettering: ${stderr}`) : null),
    }).catch((e: unknown) => assert.fail(`${String(e)}\n${stderr}`));
    assert.deepEqual([dl.header.get(DlqHeader.Reason), dl.header.get(DlqHeader.Seq), dl.header.get(DlqHeader.MsgId)], [DlqReason.MaxDeliveries, String(pub.seq), id]);
    assert.equal((await bus.streamInfo(STREAM_TASKS)).state.messages, 0, 'removed from the work queue');
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number | null];
    assert.equal(code, 0, stderr.slice(-2000));
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await bus.close();
    await nats.dispose();
  }
});

// The docker compose stack on a real engine, driven through testcontainers: brought up from the
// images deploy/build-images.sh built, a short training read over gRPC from the host, actors
// scaled to 3 (three register), one actor `docker kill`ed mid-round, the NATS container
// restarted mid-run, and the run finishing with every rollout accounted for. The run is a run file
// (the recipe, tasks, fleet and ack waits of this test) that every owrl container mounts. NATS requires the
// user and password of the compose file (a fresh password per run): the host connects with them,
// a connection without them is refused, and no container logs the password.
//
// Not part of `npm test` (the file name does not end in .test.js): run by `npm run test:deploy`
// (scripts/test-deploy.mjs), which prepares the engine and the images and sets the variables
// below. OWRL_DEPLOY_COMPOSE=v1 uses `docker-compose` (1.29), anything else `docker compose`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { DockerComposeEnvironment, Wait, type StartedDockerComposeEnvironment } from 'testcontainers';
import { RunPhase, type RunState } from '@owrl/proto';
import { LearnerProbe, freePorts, waitForSettledCounts, waitUntil, watchRedeliveries, type RedeliveryWatch } from '@owrl/testkit';
import { learnerConsumerName, STREAM_SCORED, STREAM_TASKS, STREAM_TRAJ } from '@owrl/bus';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DEPLOY = path.join(ROOT, 'deploy');
const DOCKER = process.env.OWRL_DEPLOY_DOCKER ?? 'docker';
const V1 = process.env.OWRL_DEPLOY_COMPOSE === 'v1';
const run = promisify(execFile);

const ROUNDS = 3;
// 3 groups × 4 = 12 rollouts a round for the 6 slots of 3 actors: at a round's start requests wait
// queued for a free slot, which is when the test kills an actor (below).
const GROUPS = 3;
const GROUP_SIZE = 4;
const SLOTS = 2;
// Rollouts of the killed actor come back after one ack wait: short here so the test stays short.
const ACK_WAIT_S = 20;

const log = (msg: string, extra: Record<string, unknown> = {}): void => {
  process.stderr.write(`[deploy] ${new Date().toISOString().slice(11, 19)} ${msg}${Object.keys(extra).length ? ' ' + JSON.stringify(extra) : ''}\n`);
};

async function compose(project: string, env: Record<string, string>, ...args: string[]): Promise<string> {
  const [cmd, pre] = V1 ? ['docker-compose', []] : [DOCKER, ['compose']];
  const { stdout } = await run(cmd, [...pre, '-f', path.join(DEPLOY, 'docker-compose.yml'), '-p', project, ...args], {
    env: { ...process.env, ...env },
    timeout: 300_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/** Container ids of one compose service (the labels are the same in Compose v1 and v2). */
async function containersOf(project: string, service: string): Promise<string[]> {
  const { stdout } = await run(DOCKER, ['ps', '-q', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`, '--filter', `label=com.docker.compose.service=${service}`]);
  return stdout.split('\n').filter(Boolean);
}

const phaseName = (s: RunState): string => RunPhase[s.phase] ?? String(s.phase);

void test('docker compose stack: train, scale, kill an actor, restart NATS, finish with every rollout accounted for', { timeout: 30 * 60_000 }, async () => {
  const t0 = Date.now();
  const project = `owrl-deploy-${process.pid}`;
  const [grpcPort, natsPort, sitesPort, learnerMetricsPort] = (await freePorts(4)) as [number, number, number, number];
  const natsUser = 'owrl';
  // Starts with a letter: nats-server reads it as a config value (deploy/nats/owrl-nats.conf).
  const natsPassword = `owrl-${randomBytes(18).toString('hex')}`;
  const runId = `deploy-${process.pid}`;
  // The run of this test is a run file, mounted into every owrl service in place of deploy/run.yaml.
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-deploy-run-'));
  fs.chmodSync(runDir, 0o755);
  const runFile = path.join(runDir, 'run.yaml');
  fs.writeFileSync(
    runFile,
    [
      `state: { run_id: ${runId}, data_dir: /data/learner }`,
      'tasks: { suites: [shop], sites_url: "http://sites:8400", difficulties: [1, 2] }',
      `recipe: { rounds: ${ROUNDS}, groups_per_round: ${GROUPS}, group_size: ${GROUP_SIZE}, curriculum: [{ max_steps: 4 }] }`,
      'judge: { kind: verifiers, concurrency: 8 }',
      `fleet: { slots: ${SLOTS}, allow_hosts: ["sites:8400"] }`,
      `nats: { actors_ack_wait_s: ${ACK_WAIT_S}, judge_ack_wait_s: ${ACK_WAIT_S} }`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const env: Record<string, string> = {
    OWRL_TAG: process.env.OWRL_TAG ?? 'local',
    OWRL_NATS_IMAGE: process.env.OWRL_NATS_IMAGE ?? 'nats:2.10-alpine',
    OWRL_RUN_FILE_HOST: runFile,
    // The registry's busy count is at most a second old: the actor killed below is mid-episode.
    OWRL_HEARTBEAT_S: '1',
    // info: a failure's log tails show the rounds and the episodes (and more lines are checked for the password).
    OWRL_LOG_LEVEL: process.env.OWRL_LOG_LEVEL ?? 'info',
    OWRL_NATS_PORT: String(natsPort),
    OWRL_SITES_PORT: String(sitesPort),
    OWRL_GRPC_PORT: String(grpcPort),
    OWRL_LEARNER_METRICS_PORT: String(learnerMetricsPort),
    OWRL_NATS_USER: natsUser,
    OWRL_NATS_PASSWORD: natsPassword,
  };
  let environment: StartedDockerComposeEnvironment | undefined;
  const probe = new LearnerProbe(`127.0.0.1:${grpcPort}`);
  const figures: Record<string, unknown> = { compose: V1 ? 'docker-compose 1.29' : 'docker compose v2' };
  // The last run state seen over gRPC (or why none was), reported when the test fails.
  let seen = 'no run state read yet';
  const history: string[] = [];
  // Set when the learner reports the run FAILED: every wait below stops on it.
  let failed: Error | null = null;
  const abort = (): Error | null => failed;
  const getState = async (): Promise<RunState> => {
    try {
      const s = await probe.getRunState();
      if (s.phase === RunPhase.FAILED) failed ??= new Error(`run FAILED: ${s.failureCode} ${s.message}`);
      const c = s.counters;
      const now = JSON.stringify({
        phase: phaseName(s),
        round: Number(s.round),
        rounds: s.rounds.length,
        actors: s.actors.map((a) => `${a.actorId} ${a.busy}/${a.slots}`),
        dispatched: Number(c?.dispatched ?? 0n),
        ingested: Number(c?.scoredIngested ?? 0n),
        in_flight: Number(c?.inFlight ?? 0n),
      });
      // Every change of the run's state, with its time: a failure shows where the run stood still.
      if (now !== seen) history.push(`${new Date().toISOString().slice(11, 19)} ${now}`);
      seen = now;
      return s;
    } catch (e) {
      seen = `GetRunState failed: ${(e as Error).message}`;
      throw e;
    }
  };
  let nc: NatsConnection | undefined;
  let redeliveries: RedeliveryWatch | undefined;
  let passed = false;
  try {
    environment = await new DockerComposeEnvironment(DEPLOY, 'docker-compose.yml')
      .withProjectName(project)
      .withEnvironment(env)
      .withDefaultWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(240_000)
      .withClientOptions(V1 ? { executable: { standalone: true } } : { executable: { executablePath: DOCKER } })
      .up();
    figures.healthy_s = Math.round((Date.now() - t0) / 1000);
    log('stack up and healthy', { s: figures.healthy_s });
    // The broker from the host through its published port: consumer state and the final accounting.
    const natsServer = `127.0.0.1:${env.OWRL_NATS_PORT}`;
    // The server requires the credentials: none, or a wrong password, is refused.
    for (const auth of [{}, { user: natsUser, pass: 'wrong-password' }]) {
      await assert.rejects(connect({ servers: natsServer, reconnect: false, ...auth }), /authorization/i, `NATS refuses a client with ${JSON.stringify(Object.keys(auth))}`);
    }
    nc = await connect({ servers: natsServer, user: natsUser, pass: natsPassword, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    figures.nats_auth = 'user-password (unauthenticated and wrong-password clients refused)';
    // Redeliveries of rollout requests, counted as the actors settle them (see watchRedeliveries).
    redeliveries = watchRedeliveries(nc, STREAM_TASKS, 'actors');

    // The run, over gRPC from the host through the published port.
    await waitUntil('run RUNNING with 1 actor registered', async () => {
      const s = await getState();
      return s.phase === RunPhase.RUNNING && s.actors.length === 1 ? s : undefined;
    }, { timeoutMs: 120_000, intervalMs: 1000, abort });
    figures.running_s = Math.round((Date.now() - t0) / 1000);

    // Scale to 3: three actors register.
    const tScale = Date.now();
    await compose(project, env, 'up', '-d', '--no-recreate', '--scale', 'actor=3', 'actor');
    const scaled = await waitUntil('3 actors registered', async () => {
      const s = await getState();
      // Each actor once (the registry read once listed an actor twice while heartbeats were written).
      const ids = s.actors.map((a) => a.actorId);
      assert.equal(new Set(ids).size, ids.length, `each actor listed once: ${ids.join(', ')}`);
      return ids.length === 3 ? s : undefined;
    }, { timeoutMs: 180_000, intervalMs: 1000, abort });
    figures.scale_to_3_s = Math.round((Date.now() - tScale) / 1000);
    log('3 actors registered', { actors: scaled.actors.map((a) => a.actorId), s: figures.scale_to_3_s });
    assert.equal((await containersOf(project, 'actor')).length, 3);

    // docker kill an actor that holds a rollout request (mid-round). A busy count from a recent
    // heartbeat alone is not enough: the actor may finish its last episode of the round between
    // its heartbeat and the kill (seen: killed 1 s after its last episode, nothing to redeliver).
    // So the kill waits for requests queued for the actors (undelivered): a busy actor that ends
    // an episode then takes the next request at once, and holds one whenever it is killed.
    const jsmTasks = await jetstreamManager(nc);
    const busy = await waitUntil('an actor busy while requests wait for a slot', async () => {
      const s = await getState();
      // A heartbeat of the last 2 s (the actors beat every second), whatever the fleet view's own refresh does.
      const a = s.actors.find((x) => x.busy > 0 && Date.now() - Number(x.updatedAtMs) < 2000);
      if (!a || !s.counters || s.counters.dispatched === 0n) return undefined;
      const queued = (await jsmTasks.consumers.info(STREAM_TASKS, 'actors')).num_pending;
      return queued > 0 ? { state: s, actor: a, queued } : undefined;
    }, { timeoutMs: 180_000, intervalMs: 250, abort });
    const actorContainers = await containersOf(project, 'actor');
    // The default actor id is <hostname>-<pid>; a container's hostname is its short id.
    const victim = actorContainers.find((id) => busy.actor.actorId.startsWith(id.slice(0, 12)));
    assert.ok(victim, `container of ${busy.actor.actorId} among ${actorContainers.join(', ')}`);
    const killedAt = Date.now();
    await run(DOCKER, ['kill', victim]);
    log('killed actor', { id: busy.actor.actorId, busy: busy.actor.busy, round: Number(busy.state.round), queued: busy.queued });
    // The run state lets it go after 3 missed heartbeats (its record states its 1 s interval) and
    // the fleet view's next read (every 3 s), long before the 30 s default for records without one.
    const left = waitUntil('the killed actor out of RunState.actors', async () => ((await getState()).actors.some((a) => a.actorId === busy.actor.actorId) ? undefined : Date.now()), {
      timeoutMs: 20_000,
      intervalMs: 250,
      abort,
    });
    left.catch(() => {});
    // Its rollouts come back to the other actors after one ack wait: another actor settles (acks,
    // or sends working() for) a request delivered a second time.
    const watch = redeliveries;
    const redelivered = await waitUntil('the killed actor\'s rollouts redelivered', async () => {
      await getState();
      const seqs = watch.redeliveredSince(killedAt);
      return seqs.length > 0 ? seqs.length : undefined;
    }, { timeoutMs: ACK_WAIT_S * 6 * 1000, intervalMs: 250, abort });
    const recoveryS = (Date.now() - killedAt) / 1000;
    const leftS = ((await left) - killedAt) / 1000;
    figures.actor_kill = { id: busy.actor.actorId, busy_slots: busy.actor.busy, round: Number(busy.state.round), redelivered, recovery_s: recoveryS, ack_wait_s: ACK_WAIT_S, left_run_state_s: leftS };
    log('killed actor\'s rollouts redelivered', figures.actor_kill as Record<string, unknown>);

    // Restart the NATS container mid-run (JetStream keeps its state on the volume).
    const mid = await waitUntil('the run past its first round', async () => {
      const s = await getState();
      return s.rounds.length >= 1 && s.phase === RunPhase.RUNNING ? s : undefined;
    }, { timeoutMs: 600_000, intervalMs: 1000, abort });
    const [nats] = await containersOf(project, 'nats');
    const tRestart = Date.now();
    await run(DOCKER, ['restart', '-t', '5', nats!]);
    const restartS = (Date.now() - tRestart) / 1000;
    log('restarted NATS', { round: Number(mid.round), restart_s: restartS });
    // Every service reconnects: scoring goes on (trajectories ingested after the restart).
    const ingestedAtRestart = mid.counters?.scoredIngested ?? 0n;
    await waitUntil('scoring to resume after the NATS restart', async () => {
      const s = await getState();
      return (s.counters?.scoredIngested ?? 0n) > ingestedAtRestart || s.phase === RunPhase.FINISHED ? s : undefined;
    }, { timeoutMs: 300_000, intervalMs: 500, abort });
    figures.nats_restart = { round: Number(mid.round), ingested_before: Number(ingestedAtRestart), restart_s: restartS, recovery_s: (Date.now() - tRestart) / 1000 };
    log('scoring resumed after the NATS restart', figures.nats_restart as Record<string, unknown>);

    // The run finishes.
    const final = await waitUntil('run FINISHED', async () => {
      const s = await getState();
      return s.phase === RunPhase.FINISHED ? s : undefined;
    }, { timeoutMs: 900_000, intervalMs: 2000, abort });
    figures.finished_s = Math.round((Date.now() - t0) / 1000);

    // The accounting, from the broker and the learner together: every dispatch stored once in
    // OWRL_TASKS, every scored message counted once as trainable, excluded or late, nothing queued.
    const settled = await waitForSettledCounts({ runId, natsConnection: () => Promise.resolve(nc!), runState: () => getState() });
    const c = settled.state.counters!;
    // None used twice: no trajectory in two groups.
    const ids: string[] = [];
    for (let r = 0; r < ROUNDS; r++) for (const g of (await probe.listGroups(r)).groups) ids.push(...g.trajectoryIds.filter((id) => id !== ''));
    const usedTwice = ids.length - new Set(ids).size;
    const n = (x: bigint): number => Number(x);
    figures.run = {
      phase: phaseName(final),
      rounds: final.rounds.length,
      policy_version: n(final.policyVersion),
      dispatched: n(c.dispatched),
      tasks_stored: settled.dispatched,
      scored: settled.scored,
      redispatched: n(c.redispatched),
      scored_ingested: n(c.scoredIngested),
      trainable: n(c.trainable),
      excluded: n(c.excluded),
      late_dropped: n(c.lateDropped),
      duplicates_dropped: n(c.duplicatesDropped),
      in_flight: n(c.inFlight),
      updates: n(c.updates),
      lost: n(c.dispatched - c.trainable - c.excluded - c.lateDropped),
      used_twice: usedTwice,
    };
    figures.total_s = Math.round((Date.now() - t0) / 1000);
    assert.equal(final.rounds.length, ROUNDS);
    assert.ok(final.policyVersion >= 1n, 'the policy was updated');
    assert.equal(c.inFlight, 0n, 'nothing left in flight');
    assert.ok(c.dispatched >= BigInt(ROUNDS * GROUPS * GROUP_SIZE), `dispatched ${c.dispatched}`);
    // dispatched = scored = ingested + excluded (+ late), each exactly once.
    assert.equal(BigInt(settled.dispatched), c.dispatched, 'every dispatch stored once in OWRL_TASKS');
    assert.equal(BigInt(settled.scored), c.dispatched, 'every dispatched rollout scored once');
    assert.equal(BigInt(settled.scored), c.trainable + c.excluded + c.lateDropped, 'every scored result ingested, excluded or dropped as late once');
    assert.equal(c.scoredIngested, c.dispatched, 'every dispatched rollout was scored and ingested once');
    assert.equal(c.trainable + c.excluded, c.scoredIngested, 'ingested = trainable + excluded');
    assert.equal(usedTwice, 0, 'no trajectory in two groups');
    const excludedByCause = Object.values(final.excluded).reduce((a, b) => a + b, 0n);
    assert.equal(excludedByCause, c.excluded, 'every exclusion has its cause');
    const terminations = Object.values(final.terminations).reduce((a, b) => a + b, 0n);
    assert.equal(terminations, c.scoredIngested, 'every ingested rollout has its termination class');
    // The NATS password appears in no container's log (services log their settings with secrets redacted).
    const allLogs = await compose(project, env, 'logs', '--no-color');
    assert.ok(allLogs.length > 0, 'compose logs read');
    assert.ok(!allLogs.includes(natsPassword), 'the NATS password is not logged');
    passed = true;
  } finally {
    process.stdout.write(`${JSON.stringify({ deploy_compose: figures })}\n`);
    // scripts/test-deploy.mjs puts them into its own closing line of figures.
    if (process.env.OWRL_DEPLOY_FIGURES) fs.writeFileSync(process.env.OWRL_DEPLOY_FIGURES, JSON.stringify(figures));
    if (!passed) {
      log('FAILED; last run state seen', { seen });
      process.stderr.write(`[deploy] run state changes (time, state):\n${history.slice(-40).join('\n')}\n`);
      // Where the messages are: each consumer's pending, unacked, redelivered and waiting pulls.
      if (nc !== undefined) {
        const jsm = await jetstreamManager(nc).catch(() => undefined);
        for (const [stream, consumer] of [[STREAM_TASKS, 'actors'], [STREAM_TRAJ, 'judge'], [STREAM_SCORED, learnerConsumerName(runId)]] as const) {
          const ci = await jsm?.consumers.info(stream, consumer).catch((e: unknown) => (e as Error).message);
          const info = typeof ci === 'object' && ci !== null ? { pending: ci.num_pending, ack_pending: ci.num_ack_pending, redelivered_now: ci.num_redelivered, waiting_pulls: ci.num_waiting, delivered: ci.delivered, ack_floor: ci.ack_floor } : ci;
          log(`consumer ${stream}/${consumer}`, { info });
        }
        log('redeliveries seen on the actors\' ack subjects', { seqs: redeliveries?.redeliveredSince(0), acks_seen: redeliveries?.seen });
      }
      // One service at a time, the learner and the actors last: a CI log shows only its tail.
      for (const service of ['nats', 'sites', 'console', 'judge', 'learner', 'actor']) {
        const logs = await compose(project, env, 'logs', '--no-color', '--tail', '30', service).catch((e: unknown) => `compose logs ${service} failed: ${(e as Error).message}`);
        process.stderr.write(`${logs}\n`);
      }
    }
    probe.close();
    redeliveries?.close();
    await nc?.close().catch(() => undefined);
    if (environment !== undefined) {
      if (process.env.OWRL_DEPLOY_KEEP !== '1') await environment.down({ removeVolumes: true, timeout: 10_000 });
    } else {
      await compose(project, env, 'down', '-v', '--remove-orphans').catch(() => undefined);
    }
    fs.rmSync(runDir, { recursive: true, force: true });
  }
});

// `owrl eval`: runs a policy over a task file without training, through the same actors and
// judge as training (a JetStream server unless NATS_URL is set, the bundled sites when the tasks
// point at a local one, the judge and N actors as child processes). The eval publishes the policy
// as the weights pointer, dispatches every (task, sample) rollout that results.jsonl does not
// settle yet, keeping a small window in flight, and records each scored trajectory as it arrives
// (synced before the ack). Infrastructure outcomes (excluded by the judge, or no result within the
// rollout timeout) are re-dispatched up to max attempts and reported as exclusions, never failures.
import { createHash } from 'node:crypto';
import path from 'node:path';
import fs from 'node:fs';
import { connectBus, ensureLearnerConsumer, ensureTopology, STREAM_SCORED, taskSubject, WeightsPointer, type Bus, type ConsumeHandle } from '@owrl/bus';
import { fnv1a, parseTrajectoryId, trajectoryId } from '@owrl/core';
import { make, PolicyArtifactSchema, RolloutRequestSchema, ScoredTrajectorySchema, terminationClassName, verdictSourceName, type ScoredTrajectory, type Task } from '@owrl/proto';
import { readTaskFile } from '@owrl/tasks';
import { ProcessGroup, StopWatch } from '../run/processes.js';
import { commonEnv, startActors, startBroker, startJudge, useSites, type Broker, type SitesHandle } from '../stack.js';
import { UsageError } from '../usage.js';
import { materialize, resolveEvalPolicy } from './eval-policy.js';
import { writeEvalReport, type EvalReport } from './eval-report.js';
import { EvalLedger, summarize, type EvalRecord, type EvalTaskInfo, type PendingRollout } from './eval-results.js';
import { EvalStore } from './eval-store.js';

export interface EvalOptions {
  tasksFile: string;
  /** Pointer artifact file, `uniform` or `openai` (see eval-policy). */
  policy: string | undefined;
  /** Samples per task (pass@k). */
  k: number;
  /** Output folder; default runs/<eval id> (the same command resumes the same eval). */
  outDir: string | undefined;
  jsonOut: string;
  maxSteps: number;
  temperature: number;
  actors: number;
  slots: number;
  /** Attempts per sample before it counts as excluded. */
  maxAttempts: number;
  /** A rollout with no scored result after this long is re-dispatched (an exclusion `eval:rollout_timeout`). */
  rolloutTimeoutS: number;
  timeoutS: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

function taskInfo(t: Task, index: number): EvalTaskInfo {
  return { index, id: t.id, suite: t.suite, family: t.family, difficulty: t.difficulty };
}

/** Loopback origins the tasks start at (the bundled sites); each needs a server and an allowlist entry. */
function loopbackOrigins(tasks: readonly Task[]): string[] {
  const out = new Set<string>();
  for (const t of tasks) {
    const u = new URL(t.startUrl);
    if (LOOPBACK.has(u.hostname)) out.add(u.origin);
  }
  return [...out].sort();
}

async function answers(origin: string): Promise<boolean> {
  try {
    return (await fetch(new URL('/__owrl/health', origin), { signal: AbortSignal.timeout(2000) })).ok;
  } catch {
    return false;
  }
}

/** Sites for the loopback origins: one that answers is used, one that does not is started on its port. */
async function sitesFor(origins: string[], out: (line: string) => void): Promise<SitesHandle[]> {
  const handles: SitesHandle[] = [];
  try {
    for (const o of origins) {
      if (await answers(o)) {
        out(`using the sites at ${o}`);
        handles.push(await useSites(o));
        continue;
      }
      const port = Number(new URL(o).port || 80);
      handles.push(await useSites(undefined, port));
      out(`started the bundled sites at ${o} (the origin the tasks name)`);
    }
  } catch (e) {
    await Promise.all(handles.map((h) => h.close()));
    throw e;
  }
  return handles;
}

function record(st: ScoredTrajectory, tasks: readonly EvalTaskInfo[], policyVersion: number): EvalRecord | null {
  let key;
  try {
    key = parseTrajectoryId(st.trajectoryId);
  } catch {
    return null;
  }
  const t = tasks[key.group];
  const traj = st.trajectory;
  if (!t || (traj?.request?.task?.id !== undefined && traj.request.task.id !== t.id)) return null;
  const termination = terminationClassName(traj?.termination?.class);
  const base = {
    index: t.index,
    task: t.id,
    sample: key.sample,
    attempt: key.attempt,
    trajectory_id: st.trajectoryId,
    suite: t.suite,
    family: t.family,
    difficulty: t.difficulty,
    termination,
    reason: traj?.termination?.reason ?? '',
    steps: traj?.steps.length ?? 0,
    policy_version: Number(traj?.policyVersion ?? policyVersion),
    at_ms: Date.now(),
  };
  if (!st.trainable) return { ...base, outcome: 'excluded', excluded_reason: st.excludedReason || 'excluded' };
  if (!st.verdict) return { ...base, outcome: 'excluded', excluded_reason: 'judge:no_verdict' };
  return { ...base, outcome: st.verdict.success ? 'success' : 'failure', verdict_source: verdictSourceName(st.verdict.source).toLowerCase() };
}

export async function runEval(o: EvalOptions, out: (line: string) => void): Promise<EvalReport> {
  const t0 = Date.now();
  const tasksAll = await readTaskFile(o.tasksFile);
  if (tasksAll.length === 0) throw new UsageError(`--tasks ${o.tasksFile} holds no tasks`);
  const tasks = tasksAll.map(taskInfo);
  const policy = resolveEvalPolicy(o.policy, process.env);
  const tasksSha = createHash('sha256').update(fs.readFileSync(o.tasksFile)).digest('hex');
  const identity = { tasks_sha256: tasksSha, tasks_file: path.resolve(o.tasksFile), policy: policy.identity, samples: o.k, max_steps: o.maxSteps, temperature: o.temperature };
  const evalId = `eval-${createHash('sha256').update(JSON.stringify({ ...identity, tasks_file: '' })).digest('hex').slice(0, 12)}`;
  const dir = path.resolve(o.outDir ?? path.join('runs', evalId));
  const store = EvalStore.open(dir, evalId, identity);
  const runId = store.manifest.eval_id;
  const ledger = new EvalLedger(tasks, o.k, o.maxAttempts);
  for (const r of store.previous) ledger.add(r);
  const queue: PendingRollout[] = ledger.pending();
  const settledBefore = tasks.length * o.k - queue.length;
  out(`eval ${runId}: ${tasks.length} tasks × ${o.k} samples, ${settledBefore} already settled, ${queue.length} to run; results in ${store.resultsFile}`);

  const inv = { dispatched: 0, redispatched: 0, received: 0 };
  const procs = new ProcessGroup(path.join(dir, 'logs'));
  let broker: Broker | null = null;
  let sites: SitesHandle[] = [];
  let bus: Bus | null = null;
  let consumer: ConsumeHandle | null = null;
  const stop = new StopWatch(procs);
  try {
    if (queue.length > 0) {
      // The bundled sites first: their ports are the task file's, and a port the broker then takes
      // as free can no longer be one of them (a nats-server once got the sites' port, which the
      // test that wrote the task file had just released: EADDRINUSE).
      const origins = loopbackOrigins(tasksAll);
      sites = await sitesFor(origins, out);
      broker = await startBroker(out);
      const common = commonEnv(broker.url);
      bus = await connectBus({ servers: broker.url, name: 'owrl-eval', timeoutMs: 10_000 });
      await ensureTopology(bus);
      const weights = await WeightsPointer.open(bus);
      const prev = await weights.get();
      const version = prev ? Number(prev.version) + 1 : 1;
      const art = materialize(policy, dir);
      await weights.put(
        make(PolicyArtifactSchema, { version: BigInt(version), uri: art.uri, sha256: policy.sha256, bytes: BigInt(art.bytes), kind: policy.kind, runId, createdAtMs: BigInt(Date.now()), temperature: o.temperature }),
      );
      startJudge(procs, common);
      startActors(procs, common, { actors: o.actors, slots: o.slots, allowHosts: sites.map((s) => s.host), env: policy.actorEnv });
      out(`policy v${version}: ${policy.describe}; judge and ${o.actors} actors × ${o.slots} browser slots started; logs in ${path.join(dir, 'logs')}`);

      const incarnation = store.manifest.invocations;
      const inFlight = new Map<string, { slot: PendingRollout; deadline: number }>();
      const requeue = (r: EvalRecord) => {
        if (ledger.settled(r.index, r.sample)) return;
        queue.push({ index: r.index, sample: r.sample, attempt: r.attempt + 1 });
      };
      const keep = (r: EvalRecord): void => {
        if (!ledger.add(r)) return;
        store.append(r);
        inv.received++;
        if (r.outcome === 'excluded') requeue(r);
      };
      const scoredConsumer = await ensureLearnerConsumer(bus, runId);
      consumer = await bus.consume({
        stream: STREAM_SCORED,
        consumer: scoredConsumer,
        schema: ScoredTrajectorySchema,
        maxInFlight: 8,
        handler: (d) => {
          inFlight.delete(d.value.trajectoryId);
          const r = record(d.value, tasks, version);
          if (r) keep(r);
        },
      });
      const window = o.actors * o.slots + 2;
      const busRef = bus;
      const dispatch = async (slot: PendingRollout): Promise<void> => {
        const t = tasksAll[slot.index];
        if (!t) return;
        const id = trajectoryId({ runId, round: 0, group: slot.index, sample: slot.sample, attempt: slot.attempt, incarnation });
        const req = make(RolloutRequestSchema, {
          runId,
          round: 0n,
          group: slot.index,
          sample: slot.sample,
          attempt: slot.attempt,
          trajectoryId: id,
          task: t,
          maxSteps: o.maxSteps,
          policyVersion: BigInt(version),
          minPolicyVersion: BigInt(version),
          sessionId: `${fnv1a(id).toString(36)}${fnv1a(id, 0x9e3779b9).toString(36)}`,
          dispatchedAtMs: BigInt(Date.now()),
          temperature: o.temperature,
          seed: BigInt(fnv1a(id, 0x2545f491)),
        });
        await busRef.publish(taskSubject(runId), RolloutRequestSchema, req, { msgId: id });
        inFlight.set(id, { slot, deadline: Date.now() + o.rolloutTimeoutS * 1000 });
        inv.dispatched++;
        if (slot.attempt > 0) inv.redispatched++;
      };
      const deadline = t0 + o.timeoutS * 1000;
      for (;;) {
        stop.check();
        if (Date.now() > deadline) throw new Error(`the eval did not finish within ${o.timeoutS} s (rerun the same command to resume it)`);
        for (const [id, f] of inFlight) {
          if (Date.now() < f.deadline) continue;
          inFlight.delete(id);
          const t = tasks[f.slot.index];
          if (!t) continue;
          keep({ index: t.index, task: t.id, sample: f.slot.sample, attempt: f.slot.attempt, trajectory_id: id, suite: t.suite, family: t.family, difficulty: t.difficulty, outcome: 'excluded', termination: 'UNSPECIFIED', reason: '', excluded_reason: 'eval:rollout_timeout', steps: 0, policy_version: version, at_ms: Date.now() });
        }
        while (inFlight.size < window && queue.length > 0) {
          const slot = queue.shift();
          if (slot && !ledger.settled(slot.index, slot.sample)) await dispatch(slot);
        }
        if (queue.length === 0 && inFlight.size === 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const report: EvalReport = {
      eval_id: runId,
      tasks_file: path.resolve(o.tasksFile),
      policy: policy.describe,
      max_steps: o.maxSteps,
      temperature: o.temperature,
      max_attempts: o.maxAttempts,
      summary: summarize(ledger),
      invocation: { ...inv, resumed_settled_samples: settledBefore, wall_s: Number(((Date.now() - t0) / 1000).toFixed(1)) },
      invocations: store.manifest.invocations,
    };
    const files = writeEvalReport(dir, report);
    if (o.jsonOut) fs.writeFileSync(o.jsonOut, JSON.stringify(report, null, 2) + '\n');
    const s = report.summary;
    const k = s.samples_per_task;
    out(`pass@1 ${(s.overall.pass_at_1 * 100).toFixed(1)} %${k > 1 ? `, pass@${k} ${((s.overall.pass_at[String(k)] ?? 0) * 100).toFixed(1)} %` : ''} over ${s.overall.scored_tasks} tasks; excluded samples ${s.excluded_samples}`);
    out(`by suite: ${Object.entries(s.by_suite).map(([n, f]) => `${n} ${(f.pass_at_1 * 100).toFixed(0)}%`).join(', ')}`);
    out(`report: ${files.markdown} (with plots: ${files.html}), JSON: ${files.json}`);
    return report;
  } finally {
    await consumer?.stop().catch(() => undefined);
    await bus?.close().catch(() => undefined);
    store.close();
    await procs.stopAll();
    await Promise.all(sites.map((s) => s.close()));
    await broker?.dispose();
    stop.close();
  }
}

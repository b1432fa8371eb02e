// Bus efficiency benchmark: how close owrl's path of a trajectory comes to what JetStream itself
// can move, in one run. (1) owrl: synthetic actors with episodes compressed to milliseconds, so
// the pipeline is the bottleneck — rollout request (learner → OWRL_TASKS → actor), trajectory
// (actor → OWRL_TRAJ → judge, verifier path), scored trajectory (judge → OWRL_SCORED → learner
// ingestion), all real processes; figure: trajectories per second taken in by the learner. (2) raw:
// the same bytes (the requests, trajectories and scored trajectories captured from run 1) through
// the same three hops on a fresh nats-server with bare JetStream clients in this process: publish
// with a message id, pull, publish the next hop's bytes, then ack (the services' publish-then-ack
// order), with up to 256 publishes in flight per hop. ratio = owrl / raw (target ≥ 0.5). The raw
// run's streams are work queues (a message deleted once acked); a second raw run keeps the
// trajectories and scored trajectories as owrl's limits streams do (ratio_retained: what owrl's
// path costs beyond JetStream storing the same data). OWRL_BENCH_NATS_PROFILE=<dir> writes each
// nats-server's Go CPU profile and message counters (see fleet-run.ts natsProfileOptions).
// The raw side does what owrl must at each hop: a publish with a message id (the stream's dedupe),
// stored before the message that caused it is acked; its acks are plain, as owrl's are (the
// services' consumers run with confirmAcks off: every one of them dedupes a redelivery).
// Neither side is watched on its path: the owrl run's captures unsubscribe once they hold their
// messages, and the scored trajectories are not observed (observeScored: the fleet bench's lags).
// Subscriptions left open would have the nats-server send every trajectory and scored trajectory
// to this process too (counted as the owrl path's nats-server CPU) and this process decode them on
// the same cores: work of the bench, not of the owrl path, and none of it on the raw side.
//   npm run bench -- bus [--slots 256] [--window 30] [--messages 8000] [--round-groups 10000] [--root DIR] [--env KEY=VALUE ...]
// --round-groups: groups per learner update (async). The default is more than the window fills,
// so no update falls in it: the path the ratio measures is the bus, the judge and the learner's
// ingestion (the definition), not the learner's CPU pointer update, which on this
// 2-core machine shares the cores with the path (a GPU run trains elsewhere: a remote trainer).
// The learner then holds every result it took in (its memory grows with the window). A size the
// window fills (e.g. 64) puts updates in the path too; the figures then give the update's share
// of the window and the rate between updates.
// A change that moves work from ingestion to the update is not judged by the default window,
// which counts the first and none of the second: run it with --round-groups 64 as well (reading
// held steps back from the stream, OWRL_HELD_STEPS=stream, looks faster without updates and is
// slower with them).
// --env KEY=VALUE: extra environment of every owrl service (repeatable), e.g. OWRL_HELD_STEPS=stream.
// --root: a folder whose services/<name>/dist/src/main.js are run instead of this checkout's
// (e.g. symlinks to another build of the learner), to compare before and after a change.
import { parseArgs } from 'node:util';
import os from 'node:os';
import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType, type JsMsg } from '@nats-io/jetstream';
import { connectBus, type Bus } from '@owrl/bus';
import { startNatsServer } from '@owrl/testkit';
import { natsPid, natsProfileDuring, natsProfileOptions, parseEnvArgs, procStat, runFleet, type Captured } from './fleet-run.js';

const HOPS = [
  { stream: 'RAW_REQ', subject: 'raw.req' },
  { stream: 'RAW_TRAJ', subject: 'raw.traj' },
  { stream: 'RAW_SCORED', subject: 'raw.scored' },
] as const;
const WINDOW = 256;
/** Groups per learner update by default: more than the window fills (no update in it). */
const DEFAULT_ROUND_GROUPS = 10_000;
/** Above this many groups per update the learner may hold more results than its default max_ack_pending. */
const HELD_ROUND_GROUPS = 64;

/** Bounded window of promises in flight. */
class Window {
  private n = 0;
  private waiters: Array<() => void> = [];
  async enter(): Promise<void> {
    while (this.n >= WINDOW) await new Promise<void>((r) => this.waiters.push(r));
    this.n++;
  }
  leave(): void {
    this.n--;
    this.waiters.shift()?.();
  }
  async drain(): Promise<void> {
    while (this.n > 0) await new Promise<void>((r) => this.waiters.push(r));
  }
}

/**
 * A publish with a message id, tried again (same id: the stream drops a copy) when no PubAck came
 * in time, as owrl's publish does; a loaded machine otherwise ends the raw run on one timeout.
 */
async function publishRaw(bus: Bus, subject: string, data: Uint8Array, msgID: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await bus.js.publish(subject, data, { msgID, timeout: 5000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw new Error(`raw publish of ${msgID} to ${subject} failed ${attempt} times: ${(e as Error).message}`, { cause: e });
    }
  }
}

/** Consumes `n` messages of hop `i`; each is forwarded to hop i+1 (when there is one) and acked once that publish is stored. */
async function hop(bus: Bus, i: number, n: number, next: Uint8Array[] | null): Promise<void> {
  const h = HOPS[i] as (typeof HOPS)[number];
  const c = await bus.js.consumers.get(h.stream, `raw_${i}`);
  const it = await c.consume({ max_messages: 1024 });
  const w = new Window();
  let got = 0;
  let failed: Error | null = null;
  for await (const m of it) {
    const k = got++;
    if (next) {
      await w.enter();
      const to = HOPS[i + 1] as (typeof HOPS)[number];
      const msg: JsMsg = m;
      void publishRaw(bus, to.subject, next[k % next.length] as Uint8Array, `${to.subject}-${k}`)
        .then(() => msg.ack())
        .catch((e: unknown) => void (failed ??= e as Error))
        .finally(() => w.leave());
    } else {
      m.ack();
    }
    if (got >= n || failed) break;
  }
  await w.drain();
  await it.close();
  if (failed) throw failed;
}

/**
 * Raw JetStream: `n` messages through the three hops: messages per second end to end, and the CPU
 * (% of a core) of this process's clients and of nats-server over that time. `retained` false:
 * every hop a work-queue stream (a message is deleted once acked: the cheapest JetStream can
 * move bytes, the ratio's baseline); true: owrl's own retention (requests a work queue,
 * trajectories and scored trajectories kept by limits, as OWRL_TRAJ and OWRL_SCORED keep them for
 * a week), so that the two raw rates split owrl's cost into what its retention costs JetStream and
 * what its path adds.
 */
async function rawRate(captured: Captured, n: number, retained: boolean): Promise<{ rate: number; clientCpuPct: number; natsCpuPct: number }> {
  const nats = await startNatsServer(natsProfileOptions());
  const bus = await connectBus({ servers: nats.url, name: 'owrl-bench-bus-raw' });
  try {
    for (const [i, h] of HOPS.entries()) {
      await bus.jsm.streams.add({ name: h.stream, subjects: [h.subject], retention: retained && i > 0 ? RetentionPolicy.Limits : RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: 120e9 });
      await bus.jsm.consumers.add(h.stream, { durable_name: `raw_${i}`, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_ack_pending: 20_000, ack_wait: 60e9 });
    }
    const npid = natsPid(nats.storeDir);
    const nats0 = procStat(npid).cpuTicks;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    // The profile ends before the run does (raw moves 1000–1600 messages a second here).
    const natsProfile = natsProfileDuring(Math.max(1, Math.floor(n / 2000)), retained ? 'raw-retained' : 'raw');
    const consumers = Promise.all([hop(bus, 0, n, captured.trajectories), hop(bus, 1, n, captured.scored), hop(bus, 2, n, null)]);
    // Awaited below, after the requests are out; a hop failing before then is reported there.
    consumers.catch(() => {});
    const w = new Window();
    let failed: Error | null = null;
    for (let k = 0; k < n && !failed; k++) {
      await w.enter();
      void publishRaw(bus, HOPS[0].subject, captured.requests[k % captured.requests.length] as Uint8Array, `req-${k}`)
        .catch((e: unknown) => void (failed ??= e as Error))
        .finally(() => w.leave());
    }
    await w.drain();
    if (failed) throw failed;
    await consumers;
    const s = (performance.now() - t0) / 1000;
    await natsProfile;
    const cpu = process.cpuUsage(cpu0);
    return { rate: n / s, clientCpuPct: Math.round(((cpu.user + cpu.system) / 1e6 / s) * 100), natsCpuPct: Math.round(((procStat(npid).cpuTicks - nats0) / 100 / s) * 100) };
  } finally {
    await bus.close();
    await nats.dispose();
  }
}

const mean = (xs: Uint8Array[]): number => (xs.length > 0 ? Math.round(xs.reduce((a, b) => a + b.length, 0) / xs.length) : 0);

export async function busBench(args: string[]): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, options: { slots: { type: 'string', default: '256' }, window: { type: 'string', default: '30' }, messages: { type: 'string', default: '8000' }, 'round-groups': { type: 'string', default: String(DEFAULT_ROUND_GROUPS) }, root: { type: 'string' }, env: { type: 'string', multiple: true, default: [] } } });
  const env = parseEnvArgs(values.env);
  const slots = Number(values.slots);
  const windowS = Number(values.window);
  const messages = Number(values.messages);
  if (!Number.isInteger(slots) || slots < 1) throw new Error(`--slots ${values.slots}: expected an integer >= 1`);
  if (!(windowS > 0)) throw new Error(`--window ${values.window}: expected seconds > 0`);
  if (!Number.isInteger(messages) || messages < 100) throw new Error(`--messages ${values.messages}: expected an integer >= 100`);
  const roundGroups = Number(values['round-groups']);
  if (!Number.isInteger(roundGroups) || roundGroups < 1) throw new Error(`--round-groups ${values['round-groups']}: expected an integer >= 1`);
  const captured: Captured = { requests: [], trajectories: [], scored: [] };
  process.stderr.write(`bench bus: owrl path, ${slots} synthetic slots, episodes compressed to milliseconds\n`);
  const owrl = await runFleet(
    {
      slots,
      actors: 1,
      speedup: 10_000,
      windowS,
      warmupS: 10,
      // The trajectory bytes only: step screenshots go to their own store and are not in this comparison.
      shotBytes: 0,
      drainS: 90,
      maxSteps: 15,
      stepMedianS: 5,
      // By default no update in the window (see the module comment).
      groupsPerRound: roundGroups,
      // A learner that does not train in the window holds every result it took in, unacked; and
      // it would send each a working() every third of its ack_wait (60 s: up to twice in the
      // window, 10 000s of messages at once), which a run that trains every few seconds never
      // sends (a result is held for one update). With a 10-minute ack_wait none falls in the window.
      env: { ...(roundGroups > HELD_ROUND_GROUPS ? { OWRL_SCORED_MAX_ACK_PENDING: '1000000', OWRL_SCORED_ACK_WAIT_S: '600' } : {}), ...env },
      runId: 'bench-bus',
      ...(values.root !== undefined ? { root: values.root } : {}),
      capture: 500,
      // No watch of the scored trajectories (the fleet bench's lags): the server would send every
      // one of them to this process too, work the raw side does not have.
      observeScored: false,
    },
    captured,
  );
  process.stderr.write(`bench bus: owrl figures ${JSON.stringify(owrl)}\n`);
  if (captured.requests.length === 0 || captured.trajectories.length === 0 || captured.scored.length === 0) throw new Error('no messages captured from the owrl run');
  process.stderr.write(`bench bus: owrl ${owrl.traj_per_s} trajectories/s; raw JetStream, the same bytes through the same three hops\n`);
  const raw = await rawRate(captured, messages, false);
  process.stderr.write(`bench bus: raw ${raw.rate.toFixed(1)} messages/s; again with owrl's retention (trajectories and scored trajectories kept)\n`);
  const retained = await rawRate(captured, messages, true);
  const r2 = (x: number): number => Number(x.toFixed(2));
  return {
    bench: 'bus',
    cpus: os.cpus().length,
    slots,
    round_groups: roundGroups,
    request_bytes: mean(captured.requests),
    trajectory_bytes: mean(captured.trajectories),
    scored_bytes: mean(captured.scored),
    owrl_traj_per_s: owrl.traj_per_s,
    raw_traj_per_s: r2(raw.rate),
    raw_client_cpu_pct: raw.clientCpuPct,
    raw_nats_cpu_pct: raw.natsCpuPct,
    raw_retained_traj_per_s: r2(retained.rate),
    raw_retained_client_cpu_pct: retained.clientCpuPct,
    raw_retained_nats_cpu_pct: retained.natsCpuPct,
    owrl_learner_cpu_pct: owrl.learner_cpu_pct,
    owrl_judge_cpu_pct: owrl.judge_cpu_pct,
    owrl_nats_cpu_pct: owrl.nats_cpu_pct,
    owrl_actors_cpu_pct: owrl.actors_cpu_pct,
    // The learner takes nothing in while it trains and publishes weights: the share of the window
    // that took, and the owrl rate over the rest of it (not the ratio: a diagnosis of where the
    // time goes).
    owrl_window_updates: owrl.window_updates,
    owrl_update_pct: owrl.update_pct,
    owrl_traj_per_s_between_updates: owrl.update_pct < 100 ? r2(owrl.traj_per_s / (1 - owrl.update_pct / 100)) : 0,
    lost: owrl.lost,
    dup: owrl.dup,
    // owrl against raw JetStream with the same retention: the path's own overhead (not the target's baseline).
    ratio_retained: r2(owrl.traj_per_s / retained.rate),
    ratio: r2(owrl.traj_per_s / raw.rate),
  };
}

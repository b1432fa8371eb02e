// One simulated fleet through the real system, shared by the fleet and bus benchmarks: a fresh
// nats-server, the learner (async mode, in-process trainer, gRPC), the judge (verifier path) and K
// synthetic actor processes (services/actor with OWRL_SYNTHETIC=1) holding N browser slots between
// them, all started through the test kit's system harness. The bench samples the fleet while it
// runs (busy slots, run-state counters, process memory, JetStream storage), watches the scored
// trajectories pass (judged − finished), then stops the actors (they publish what they hold at
// once) and waits until the learner has taken in everything the actors published.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readProcStat, rssBytes } from '@owrl/core';
import { connectBus, STREAM_DLQ, STREAM_SCORED, STREAM_SHOTS, STREAM_TASKS, STREAM_TRAJ } from '@owrl/bus';
import { decodeScoredLazy, type RunState } from '@owrl/proto';
import { startSystem, waitUntil, type NatsServerOptions, type OwrlSystem } from '@owrl/testkit';

export interface FleetRunOptions {
  slots: number;
  /** Synthetic actor processes sharing the slots. */
  actors: number;
  /** Time compression of the episode durations. */
  speedup: number;
  /** Seconds sampled after the warm-up. */
  windowS: number;
  /** Seconds before the window (the synchronised start of every slot settles). */
  warmupS: number;
  /** Bytes of each step's screenshot (0: no step screenshots). */
  shotBytes: number;
  /** Longest wait for the learner to take in what the actors published after they stopped. */
  drainS: number;
  /** Step budget of every rollout (the curriculum's one stage). */
  maxSteps: number;
  /** Median seconds per step of the episode model. */
  stepMedianS: number;
  /** Kept groups per update. */
  groupsPerRound: number;
  /** Each slot's first episode waits only the rest of one under way (OWRL_SYNTHETIC_STAGGER_FIRST): no start-up wave. */
  staggered?: boolean;
  /** Mean real (unscaled) episode seconds of the model, for overhead_pct_real. */
  meanRealEpisodeS?: number;
  runId: string;
  /** Extra environment of every service. */
  env?: Record<string, string>;
  /** Repository root whose services/<name>/dist run (default this checkout): before/after comparisons. */
  root?: string;
  /**
   * Watch the scored trajectories for the lags and episode times (judge_lag_s, episode_s,
   * queue_s, runner_s; 0 when off). Default true. The bus bench turns it off: the watch is a
   * subscription to every scored trajectory, which the server then sends this process as well.
   */
  observeScored?: boolean;
  /** Keep the bytes of the first this many requests, trajectories and scored trajectories seen (the bus bench replays them). */
  capture?: number;
  log?: (msg: string) => void;
}

export interface FleetFigures {
  slots: number;
  actors: number;
  speedup: number;
  window_s: number;
  /** Learner ingestion rate over the window. */
  traj_per_s: number;
  /** Mean episode duration as run (compressed) over the window, seconds. */
  episode_s: number;
  /** Mean slots running an episode or publishing its trajectory, over the window. */
  busy_slots: number;
  /** Idle slot time per trajectory: (slots − busy) / rate, seconds (scheduling and pull latency). */
  idle_s_per_traj: number;
  /** Finished by the actor → scored by the judge (publish, bus, judge queue and work), mean seconds. */
  judge_lag_s: number;
  judge_lag_p99_s: number;
  /** Scored → ingested by the learner, mean seconds (owrl_learner_ingest_lag_seconds). */
  ingest_lag_s: number;
  /** Judged → the scored message seen on its subject by a plain subscriber, mean seconds: the part of ingest_lag_s before the stream. */
  scored_seen_lag_s: number;
  /** Mean seconds the learner's loop spent publishing one batch of rollout requests (owrl_learner_dispatch_seconds). */
  dispatch_s: number;
  /** Share of the window the learner's loop spent publishing rollout requests, in %. */
  dispatch_pct: number;
  overhead_s: number;
  /** overhead_s against the episode as run (scaled by `speedup`). */
  overhead_pct: number;
  /**
   * The overhead as a real-time fleet would see it (FleetRunOptions.meanRealEpisodeS; 0 if not
   * given): idle slot time as a share of the episode as run (a share of slots: the time scale does
   * not change it) plus the judge and ingest lags, in seconds as measured, against the real mean episode.
   */
  overhead_pct_real: number;
  /** Updates that ended in the window. */
  window_updates: number;
  /** Share of the window the learner spent training and publishing weights (update_s + publish_s of those updates). */
  update_pct: number;
  /** Dispatched → taken by an actor slot (request queue and pull), mean seconds. */
  queue_s: number;
  /** The episode runner's own time, mean seconds (episode_s − runner_s: the slot's wait for the policy). */
  runner_s: number;
  learner_rss_mib: number;
  judge_rss_mib: number;
  nats_rss_mib: number;
  actor_rss_mib: number;
  learner_cpu_pct: number;
  /** At the window's end: scored trajectories the learner holds unacked, queued for its loop, and its groups not yet decided. */
  learner_held: number;
  learner_queued: number;
  learner_pending_groups: number;
  judge_cpu_pct: number;
  nats_cpu_pct: number;
  /** All the synthetic actor processes together, % of one core. */
  actors_cpu_pct: number;
  js_storage_mib: number;
  js_bytes_per_traj: number;
  updates: number;
  stale_dropped: number;
  /** Trajectories in OWRL_TRAJ (one per id) or, when more, ids in the actors' episode log lines. */
  published: number;
  published_logged: number;
  /** Actors that did not drain within the grace and were SIGKILLed. */
  actors_killed: number;
  ingested: number;
  /** Published, not yet taken in when the drain wait ended (still in the judge's or the learner's consumer). */
  pending: number;
  lost: number;
  dup: number;
  /** dup split: redeliveries the learner dropped, ids an actor published twice. */
  dup_redelivered: number;
  dup_published: number;
}

/** Message bytes seen on the bus, by hop (FleetRunOptions.capture). */
export interface Captured {
  requests: Uint8Array[];
  trajectories: Uint8Array[];
  scored: Uint8Array[];
}

const MIB = 1024 * 1024;
/** Deadline of a run-state call: a loaded machine has taken over 10 s to answer one. */
const RUN_STATE_TIMEOUT_MS = 30_000;
const r2 = (x: number): number => Number(x.toFixed(2));
const r3 = (x: number): number => Number(x.toFixed(3));
const meanOf = (xs: number[]): number => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** Task pool of the bench: answer-checked tasks over 50 hosts, ids fleet/<i>. */
export function writeTasks(file: string, n = 400): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    lines.push(
      JSON.stringify({
        id: `fleet/${i}`,
        suite: 'fleet',
        startUrl: `https://site-${i % 50}.example/start/${i}`,
        instruction: `Find the order number of item ${i} and answer with it.`,
        difficulty: 1 + (i % 3),
        family: 'lookup',
        verifier: { answer: { accepted: [`order-${i}`], normalize: true } },
      }),
    );
  }
  fs.writeFileSync(file, lines.join('\n') + '\n');
}

/** Prometheus text → value of the series with exactly this name (labels ignored: summed). */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum += v;
  }
  return sum;
}

export function procStat(pid: number | undefined): { rssMib: number; cpuTicks: number } {
  if (!pid) return { rssMib: 0, cpuTicks: 0 };
  try {
    return { rssMib: rssBytes(pid) / 2 ** 20, cpuTicks: readProcStat(pid)?.cpuTicks ?? 0 };
  } catch {
    return { rssMib: 0, cpuTicks: 0 };
  }
}

/** Pid of the nats-server whose arguments mention its store's folder. */
export function natsPid(storeDir: string): number | undefined {
  const dir = path.dirname(storeDir);
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.includes('nats-server') && cmd.includes(dir)) return Number(d);
    } catch {
      // gone
    }
  }
  return undefined;
}

async function metrics(sys: OwrlSystem, name: string): Promise<string> {
  try {
    const res = await fetch(`${sys.metricsUrl(name)}/metrics`, { signal: AbortSignal.timeout(3000) });
    return await res.text();
  } catch {
    return '';
  }
}

const counters = (s: RunState): Record<string, number> => Object.fromEntries(Object.entries(s.counters ?? {}).filter(([, v]) => typeof v === 'bigint').map(([k, v]) => [k, Number(v)]));

/**
 * Opt-in CPU profile of a service over the measuring window: `variable`=<dir> (default
 * OWRL_BENCH_LEARNER_PROFILE, the learner) preloads cpu-profile-preload.js into it, which writes
 * <dir>/<pid>.cpuprofile.
 */
function profileEnv(warmupS: number, windowS: number, variable = 'OWRL_BENCH_LEARNER_PROFILE', leadS = 10): Record<string, string> {
  const dir = process.env[variable];
  if (!dir) return {};
  return {
    NODE_OPTIONS: `--import=${new URL('./cpu-profile-preload.js', import.meta.url).href}`,
    OWRL_PROFILE_DIR: path.resolve(dir),
    // The learner is up some seconds before the warm-up begins (the actors, started after it,
    // less: their lead is 0); the profile covers the window.
    OWRL_PROFILE_START_S: String(warmupS + leadS),
    OWRL_PROFILE_DURATION_S: String(windowS),
  };
}

/** Go's profiling port of a profiled nats-server (OWRL_BENCH_NATS_PROF_PORT, default 16060); its monitoring port is the next one. */
const NATS_PROF_PORT = Number(process.env['OWRL_BENCH_NATS_PROF_PORT'] ?? 16060);
const NATS_HTTP_PORT = NATS_PROF_PORT + 1;

/**
 * Options of a bench's nats-server: 8 MiB payloads and, with OWRL_BENCH_NATS_PROFILE=<dir>, Go's
 * profiling and monitoring ports, so natsProfileDuring() can write the window's CPU profile to
 * <dir>/nats-<label>.pprof (read it with `go tool pprof -top <file>`) and the server's message
 * counters (/varz) before and after to <dir>/nats-<label>.varz.json.
 */
export function natsProfileOptions(): NatsServerOptions {
  const profiled = Boolean(process.env['OWRL_BENCH_NATS_PROFILE']);
  return { maxPayload: 8 * 1024 * 1024, ...(profiled ? { extraConfig: [`prof_port: ${NATS_PROF_PORT}`, `http_port: ${NATS_HTTP_PORT}`] } : {}) };
}

/**
 * With OWRL_BENCH_NATS_PROFILE set: the nats-server's profile over the next `seconds` (see
 * natsProfileOptions). Never rejects: a profile that cannot be taken is reported on stderr and
 * the bench goes on.
 */
export async function natsProfileDuring(seconds: number, label: string): Promise<void> {
  const dir = process.env['OWRL_BENCH_NATS_PROFILE'];
  if (!dir) return;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const varz = async (): Promise<unknown> => (await fetch(`http://127.0.0.1:${NATS_HTTP_PORT}/varz`)).json();
    const before = await varz();
    const res = await fetch(`http://127.0.0.1:${NATS_PROF_PORT}/debug/pprof/profile?seconds=${Math.max(1, Math.round(seconds))}`);
    if (!res.ok) throw new Error(`HTTP ${res.status} from the profiling port ${NATS_PROF_PORT}`);
    fs.writeFileSync(path.join(dir, `nats-${label}.pprof`), Buffer.from(await res.arrayBuffer()));
    fs.writeFileSync(path.join(dir, `nats-${label}.varz.json`), JSON.stringify({ before, after: await varz() }));
  } catch (e) {
    process.stderr.write(`nats-server profile ${label} not written: ${(e as Error).message}\n`);
  }
}

/** Runs one fleet; see the module comment. */
export async function runFleet(o: FleetRunOptions, captured: Captured = { requests: [], trajectories: [], scored: [] }): Promise<FleetFigures> {
  const log = o.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-bench-fleet-'));
  const tasks = path.join(dir, 'tasks.jsonl');
  writeTasks(tasks);
  const perActor = Math.ceil(o.slots / o.actors);
  const slots = perActor * o.actors;
  let sys: OwrlSystem | null = null;
  try {
    sys = await startSystem({
      ...(o.root !== undefined ? { root: o.root } : {}),
      runId: o.runId,
      nats: natsProfileOptions(),
      actors: o.actors,
      slots: perActor,
      logDir: path.join(dir, 'logs'),
      autostart: { sites: false },
      env: {
        OWRL_LOG_LEVEL: 'warn',
        OWRL_ACTORS_MAX_ACK_PENDING: String(slots + 64),
        OWRL_JUDGE_MAX_ACK_PENDING: String(Math.max(1024, slots)),
        ...o.env,
      },
      learnerEnv: {
        OWRL_MODE: 'async',
        OWRL_TASKS_FILE: tasks,
        OWRL_ROUNDS: '100000',
        OWRL_CURRICULUM: `100000:${o.maxSteps}`,
        OWRL_GROUPS_PER_ROUND: String(o.groupsPerRound),
        // Synthetic site failures land on 50 made-up hosts; blacklisting them would only shrink the pool.
        OWRL_BLACKLIST_FAILURES: '0',
        OWRL_LR: '0.01',
        ...profileEnv(o.warmupS, o.windowS),
      },
      // The same for the judge and the actors: OWRL_BENCH_JUDGE_PROFILE, OWRL_BENCH_ACTOR_PROFILE.
      judgeEnv: { ...profileEnv(o.warmupS, o.windowS, 'OWRL_BENCH_JUDGE_PROFILE', 0) },
      // The actors log one line per episode (its trajectory id): what they published.
      actorEnv: {
        OWRL_LOG_LEVEL: 'info',
        OWRL_SYNTHETIC: '1',
        OWRL_SYNTHETIC_SPEEDUP: String(o.speedup),
        OWRL_SYNTHETIC_SHOT_BYTES: String(o.shotBytes),
        OWRL_SYNTHETIC_STEP_MEDIAN_S: String(o.stepMedianS),
        OWRL_STEP_SCREENSHOTS: o.shotBytes > 0 ? 'true' : 'false',
        OWRL_HEARTBEAT_S: '5',
        ...profileEnv(o.warmupS, o.windowS, 'OWRL_BENCH_ACTOR_PROFILE', 0),
        ...(o.staggered ? { OWRL_SYNTHETIC_STAGGER_FIRST: String(perActor) } : {}),
      },
    });
    const system = sys;
    await system.waitForLearner({ timeoutMs: 120_000 });
    await system.waitForActors(o.actors, { timeoutMs: 120_000 });
    log(`fleet ${slots} slots: ${o.actors} synthetic actors up, speedup ${o.speedup}`);

    // Observer of the scored trajectories (a core subscription: it takes nothing from the consumers).
    // It reads the trajectory's own fields only, so it decodes lazily (the steps stay bytes): this
    // process shares the machine with the services it measures, and a whole decode of every scored
    // trajectory (~1 ms each) took CPU from them. Off (observeScored false): no subscription at all.
    const bus = await connectBus({ servers: system.natsUrl, name: 'owrl-bench-fleet-observer' });
    const nc = bus.nc;
    let observe = false;
    const judgeLag: number[] = [];
    // Judged → its scored message seen on the subject (by this observer): the bus part of the ingest lag.
    const scoredSeen: number[] = [];
    const episodeS: number[] = [];
    // Dispatched → taken by an actor slot, and the episode runner's own time (the rest of the
    // episode's time is the slot's wait for the policy the request requires).
    const queueS: number[] = [];
    const runnerS: number[] = [];
    const sub = o.observeScored === false ? null : nc.subscribe(`owrl.scored.${o.runId}`, {
      callback: (err, m) => {
        if (err || !observe) return;
        try {
          const st = decodeScoredLazy(m.data);
          const t = st.trajectory;
          if (!t || t.finishedAtMs === 0n) return;
          judgeLag.push(Number(st.judgedAtMs - t.finishedAtMs) / 1000);
          if (st.judgedAtMs > 0n) scoredSeen.push(Math.max(0, Date.now() - Number(st.judgedAtMs)) / 1000);
          const dispatched = t.request?.dispatchedAtMs ?? 0n;
          if (dispatched > 0n) queueS.push(Number(t.startedAtMs - dispatched) / 1000);
          runnerS.push((t.diagnostics?.wallMs ?? 0) / 1000);
          if (t.termination?.class !== 5) episodeS.push(Number(t.finishedAtMs - t.startedAtMs) / 1000);
        } catch {
          // not a scored trajectory
        }
      },
    });

    const keep = o.capture ?? 0;
    const subs =
      keep > 0
        ? ([
            ['tasks', captured.requests],
            ['traj', captured.trajectories],
            ['scored', captured.scored],
          ] as const).map(([kind, into]) =>
            nc.subscribe(`owrl.${kind}.${o.runId}`, {
              // Gone once it has what it keeps: a subscription left open made the server send this
              // process every trajectory once more (CPU counted as the owrl path's nats-server's).
              max: keep,
              callback: (err, m) => {
                if (!err && into.length < keep) into.push(m.data.slice());
              },
            }),
          )
        : [];
    const actorNames = system.names().filter((n) => n.startsWith('actor-'));
    const npid = system.nats ? natsPid(system.nats.storeDir) : undefined;
    const rss = { learner: 0, judge: 0, nats: 0, actor: 0 };
    const sampleRss = (): void => {
      rss.learner = Math.max(rss.learner, procStat(system.process('learner').pid).rssMib);
      rss.judge = Math.max(rss.judge, procStat(system.process('judge').pid).rssMib);
      rss.nats = Math.max(rss.nats, procStat(npid).rssMib);
      for (const a of actorNames) rss.actor = Math.max(rss.actor, procStat(system.process(a).pid).rssMib);
    };

    log(`fleet ${slots} slots: warm-up ${o.warmupS} s`);
    const warmEnd = Date.now() + o.warmupS * 1000;
    while (Date.now() < warmEnd) {
      if (system.failure()) throw system.failure();
      sampleRss();
      await new Promise((r) => setTimeout(r, 1000));
    }

    const learnerMetrics0 = await metrics(system, 'learner');
    const s0 = counters(await system.runState(RUN_STATE_TIMEOUT_MS));
    const actorTicks = (): number => actorNames.reduce((a, n) => a + procStat(system.process(n).pid).cpuTicks, 0);
    const cpu0 = { learner: procStat(system.process('learner').pid).cpuTicks, judge: procStat(system.process('judge').pid).cpuTicks, nats: procStat(npid).cpuTicks, actors: actorTicks() };
    const t0 = Date.now();
    const natsProfile = system.nats ? natsProfileDuring(o.windowS, 'owrl') : null;
    observe = true;
    const busy: number[] = [];
    log(`fleet ${slots} slots: measuring ${o.windowS} s`);
    while (Date.now() - t0 < o.windowS * 1000) {
      if (system.failure()) throw system.failure();
      const texts = await Promise.all(actorNames.map((a) => metrics(system, a)));
      busy.push(texts.reduce((a, t) => a + metricSum(t, 'owrl_actor_busy_slots'), 0));
      sampleRss();
      await new Promise((r) => setTimeout(r, 1000));
    }
    const t1 = Date.now();
    observe = false;
    await natsProfile;
    const state1 = await system.runState(RUN_STATE_TIMEOUT_MS);
    const s1 = counters(state1);
    // Updates that ended in the window: the learner takes nothing in while it trains and publishes.
    const rounds = state1.rounds.slice(Math.max(0, state1.rounds.length - ((s1['updates'] ?? 0) - (s0['updates'] ?? 0))));
    const updateS = rounds.reduce((a, r) => a + r.updateS + r.publishS, 0);
    const learnerMetrics1 = await metrics(system, 'learner');
    const pct = (k: keyof typeof cpu0, now: number) => ((now - cpu0[k]) / 100 / ((t1 - t0) / 1000)) * 100;
    const ticks = (k: 'learner' | 'judge' | 'nats', pid: number | undefined) => pct(k, procStat(pid).cpuTicks);
    const cpu = { learner: ticks('learner', system.process('learner').pid), judge: ticks('judge', system.process('judge').pid), nats: ticks('nats', npid), actors: pct('actors', actorTicks()) };
    const windowS = (t1 - t0) / 1000;
    const ingestedWindow = (s1['scoredIngested'] ?? 0) - (s0['scoredIngested'] ?? 0);
    const rate = ingestedWindow / windowS;
    const lagSum = metricSum(learnerMetrics1, 'owrl_learner_ingest_lag_seconds_sum') - metricSum(learnerMetrics0, 'owrl_learner_ingest_lag_seconds_sum');
    const lagCount = metricSum(learnerMetrics1, 'owrl_learner_ingest_lag_seconds_count') - metricSum(learnerMetrics0, 'owrl_learner_ingest_lag_seconds_count');
    const dispatchSum = metricSum(learnerMetrics1, 'owrl_learner_dispatch_seconds_sum') - metricSum(learnerMetrics0, 'owrl_learner_dispatch_seconds_sum');
    const dispatchCount = metricSum(learnerMetrics1, 'owrl_learner_dispatch_seconds_count') - metricSum(learnerMetrics0, 'owrl_learner_dispatch_seconds_count');

    // Storage while the run is live.
    const jsm = bus.jsm;
    let storage = 0;
    for (const name of [STREAM_TASKS, STREAM_TRAJ, STREAM_SCORED, STREAM_SHOTS, STREAM_DLQ]) {
      try {
        storage += (await jsm.streams.info(name)).state.bytes;
      } catch {
        // absent
      }
    }
    const stored = s1['scoredIngested'] ?? 0;

    // Drain: the actors stop pulling and publish what they hold at once; the learner takes it all in.
    log(`fleet ${slots} slots: stopping the actors (they publish what they hold)`);
    await Promise.all(actorNames.map((a) => system.process(a).stop(120_000)));
    const published = new Map<string, number>();
    for (const a of actorNames) {
      for (const l of system.process(a).jsonLines()) {
        if (l['msg'] !== 'episode finished' || typeof l['trajectory'] !== 'string') continue;
        published.set(l['trajectory'], (published.get(l['trajectory']) ?? 0) + 1);
      }
    }
    // What reached JetStream: OWRL_TRAJ keeps one message per trajectory id (Nats-Msg-Id dedupe).
    const actorExits = actorNames.map((a) => system.process(a).exit);
    const killed = actorExits.filter((e) => e?.signal === 'SIGKILL').length;
    const stream = (await jsm.streams.info(STREAM_TRAJ)).state.messages;
    const target = Math.max(stream, published.size);
    const arrived = (c: Record<string, number>) => (c['scoredIngested'] ?? 0) + (c['lateDropped'] ?? 0);
    let last = counters(await system.runState(RUN_STATE_TIMEOUT_MS));
    try {
      await waitUntil(
        `the learner to take in the ${target} trajectories the actors published`,
        async () => {
          last = counters(await system.runState(RUN_STATE_TIMEOUT_MS));
          return arrived(last) >= target ? true : undefined;
        },
        { timeoutMs: o.drainS * 1000, intervalMs: 1000 },
      );
    } catch (e) {
      log(`fleet ${slots} slots: ${(e as Error).message}`);
    }
    // A redelivery still on its way would show up as a duplicate: give it a moment.
    await new Promise((r) => setTimeout(r, 2000));
    last = counters(await system.runState(RUN_STATE_TIMEOUT_MS));
    // Still on its way (a drain cut short): not yet judged, or judged and not yet taken in.
    // A read that fails (a nats-server starved on a loaded machine times out) is retried: read as 0 it
    // would count what is still on its way as lost.
    const retried = async <T>(what: string, read: () => Promise<T>): Promise<T> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await read();
        } catch (e) {
          if (attempt >= 6) throw new Error(`fleet ${slots} slots: reading ${what} failed ${attempt} times: ${(e as Error).message}`, { cause: e });
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    const waiting = async (stream: string, consumer: string): Promise<number> => {
      try {
        const ci = await retried(`${stream}/${consumer}`, () => jsm.consumers.info(stream, consumer));
        return ci.num_pending + ci.num_ack_pending;
      } catch (e) {
        if (/not found/i.test((e as Error).message)) return 0;
        throw e;
      }
    };
    // (A duplicate the learner dropped is a redelivery of a message already counted, not another message.)
    const scoredAhead = Math.max(0, (await retried(STREAM_SCORED, () => jsm.streams.info(STREAM_SCORED))).state.messages - arrived(last));
    const pending = (await waiting(STREAM_TRAJ, 'judge')) + scoredAhead;
    sub?.unsubscribe();
    for (const s of subs) s.unsubscribe();
    await bus.close();

    const episodes = episodeS.length > 0 ? episodeS.reduce((a, b) => a + b, 0) / episodeS.length : 0;
    const busyMean = busy.length > 0 ? busy.reduce((a, b) => a + b, 0) / busy.length : 0;
    const idle = rate > 0 ? Math.max(0, slots - busyMean) / rate : 0;
    const jl = judgeLag.length > 0 ? judgeLag.reduce((a, b) => a + b, 0) / judgeLag.length : 0;
    const sorted = [...judgeLag].sort((a, b) => a - b);
    const il = lagCount > 0 ? lagSum / lagCount : 0;
    const overhead = idle + jl + il;
    const runTwice = [...published.values()].filter((n) => n > 1).length;
    return {
      slots,
      actors: o.actors,
      speedup: o.speedup,
      window_s: r2(windowS),
      traj_per_s: r2(rate),
      episode_s: r2(episodes),
      busy_slots: r2(busyMean),
      idle_s_per_traj: r2(idle),
      judge_lag_s: r2(jl),
      judge_lag_p99_s: r2(sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0),
      ingest_lag_s: r2(il),
      scored_seen_lag_s: r2(meanOf(scoredSeen)),
      dispatch_s: dispatchCount > 0 ? r3(dispatchSum / dispatchCount) : 0,
      dispatch_pct: r2((100 * dispatchSum) / windowS),
      overhead_s: r2(overhead),
      overhead_pct: episodes > 0 ? r2((100 * overhead) / episodes) : 0,
      overhead_pct_real: o.meanRealEpisodeS && episodes > 0 ? r2(100 * (idle / episodes + (jl + il) / o.meanRealEpisodeS)) : 0,
      window_updates: rounds.length,
      update_pct: r2((100 * updateS) / windowS),
      queue_s: r2(meanOf(queueS)),
      runner_s: r2(meanOf(runnerS)),
      learner_rss_mib: Math.round(rss.learner),
      judge_rss_mib: Math.round(rss.judge),
      nats_rss_mib: Math.round(rss.nats),
      actor_rss_mib: Math.round(rss.actor),
      learner_cpu_pct: Math.round(cpu.learner),
      learner_held: metricSum(learnerMetrics1, 'owrl_learner_held_results'),
      learner_queued: metricSum(learnerMetrics1, 'owrl_learner_inbox_queued'),
      learner_pending_groups: metricSum(learnerMetrics1, 'owrl_learner_pending_groups'),
      judge_cpu_pct: Math.round(cpu.judge),
      nats_cpu_pct: Math.round(cpu.nats),
      actors_cpu_pct: Math.round(cpu.actors),
      js_storage_mib: r2(storage / MIB),
      js_bytes_per_traj: stored > 0 ? Math.round(storage / stored) : 0,
      updates: last['updates'] ?? 0,
      stale_dropped: last['staleDropped'] ?? 0,
      published: target,
      published_logged: published.size,
      actors_killed: killed,
      ingested: arrived(last),
      pending,
      lost: Math.max(0, target - arrived(last) - pending),
      dup: (last['duplicatesDropped'] ?? 0) + runTwice,
      dup_redelivered: last['duplicatesDropped'] ?? 0,
      dup_published: runTwice,
    };
  } finally {
    await sys?.dispose();
    // OWRL_BENCH_KEEP_LOGS=1 keeps the services' logs (and the learner's data) for a look afterwards.
    if (process.env['OWRL_BENCH_KEEP_LOGS'] === '1') log(`fleet ${o.slots} slots: logs kept in ${dir}`);
    else fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The benches' repeatable `--env KEY=VALUE` (extra environment of every service of the run). */
export function parseEnvArgs(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of pairs) {
    const eq = kv.indexOf('=');
    if (eq < 1) throw new Error(`--env ${kv}: expected KEY=VALUE`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}

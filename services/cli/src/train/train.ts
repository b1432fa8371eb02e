// `owrl train RUN.yaml` (and `owrl demo`, the same on examples/demo.yaml): a whole training run
// from one run file. The file is checked first (nothing starts on a bad one), then what the run
// needs is started or joined: a JetStream server unless a NATS URL is given, the bundled sites
// when bundled suites are trained on and no sites URL is given; the preflight checks every piece
// (--check stops there); the file as started is kept in the run's folder (for --resume), an
// optional warm-up runs, and the learner, judge, actors and console are started as processes
// reading that file (OWRL_RUN_FILE) unless they already run on the NATS joined. Progress is
// printed per round; the run ends with a summary and a report.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LearnerClient } from '@owrl/learner-client';
import { freePort, freePorts } from '@owrl/nats-server';
import { RunPhase, type RunState } from '@owrl/proto';
import { envOverrides, isRunFileError, overlayEnv, readRunFile, runFileSettings, type LoadedRunFile } from '@owrl/run-file';
import { formatRound, formatState } from '../format.js';
import { ProcessGroup, StopWatch } from '../run/processes.js';
import { buildReport, writeReport, type RunReport } from '../run/report.js';
import { runWarmup } from '../run/warmup.js';
import { runPreflight } from '../preflight/preflight.js';
import { bundledSitesChromium, serviceMain, startBroker, startSites, STACK_MAX_PAYLOAD, waitHttp, type Broker } from '../stack.js';
import { checkTaskFiles } from './task-files.js';
import { TrainRefused } from './train-refused.js';
import { detectRunning, type Running } from './join.js';
import { prepareResume, writeStartedFile, STARTED_FILE } from './run-folder.js';
import type { TrainArgs } from './train-args.js';

export interface TrainOutcome {
  /** Set when a training ran to its end. */
  report?: RunReport;
  /** --check: every check passed. */
  checked?: boolean;
}

function load(args: TrainArgs): LoadedRunFile {
  try {
    return readRunFile(args.file, args.overrides);
  } catch (e) {
    if (isRunFileError(e)) throw new TrainRefused(e.message, { cause: e, located: true });
    throw e;
  }
}

const stamp = (): string => new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '');

export async function runTrain(args: TrainArgs, out: (line: string) => void): Promise<TrainOutcome> {
  const loaded = load(args);
  const run = loaded.run;
  const env = process.env;
  await checkTaskFiles(loaded);
  let settings;
  try {
    settings = runFileSettings(loaded, env);
  } catch (e) {
    if (isRunFileError(e)) throw new TrainRefused(e.message, { cause: e, located: true });
    throw e;
  }
  const runIdGiven = run.state?.run_id !== undefined;
  const runId = run.state?.run_id ?? `${path.basename(loaded.file).replace(/\.[^.]+$/, '').replace(/[^A-Za-z0-9_-]/g, '-')}-${stamp()}`;
  const dataDir = path.resolve(run.state?.data_dir ?? 'runs');
  const runDir = path.join(dataDir, runId);
  if (args.resume || !args.check) {
    const r = prepareResume(loaded, runDir, { resume: args.resume, runIdGiven });
    for (const line of r.lines) out(line);
  }
  const overridden = envOverrides(settings, env);
  if (overridden.length > 0) out(`environment overrides the run file: ${overridden.map((o) => `${o.variable} (${o.key})`).join(', ')}`);

  const natsGiven = args.nats ?? (env['NATS_URL'] || undefined) ?? run.nats?.url;
  const suites = (settings.vars['OWRL_SUITES'] ?? '') !== '';
  const sitesGiven = env['OWRL_SITES_URL'] || settings.vars['OWRL_SITES_URL'] || undefined;

  const logDir = args.check ? fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-check-')) : path.join(runDir, 'logs');
  const procs = new ProcessGroup(logDir);
  const stop = new StopWatch(procs);
  let broker: Broker | null = null;
  let client: LearnerClient | null = null;
  const t0 = Date.now();
  try {
    const local = natsGiven === undefined;
    // --check with those checks skipped has no use for a server or the sites.
    const needBroker = !(args.check && args.skip.includes('nats'));
    broker = needBroker ? await startBroker(out, natsGiven ?? '') : { url: natsGiven ?? 'nats://127.0.0.1:4222', dispose: () => Promise.resolve() };
    // What owrl train sets itself, on top of the file and the environment.
    // The largest message (trajectories carry screenshots): the actors cap it to the server's max_payload.
    const own: Record<string, string> = { NATS_URL: broker.url, OWRL_MAX_PAYLOAD: env['OWRL_MAX_PAYLOAD'] || String(STACK_MAX_PAYLOAD) };
    let sites: { url: string; host: string } | null = null;
    if (suites && sitesGiven === undefined && !(args.check && args.skip.includes('tasks'))) {
      sites = await startSites(procs, { ...own, OWRL_LOG_LEVEL: settings.vars['OWRL_LOG_LEVEL'] ?? 'info' });
      await waitHttp(`${sites.url}/__owrl/health`, 30_000);
      own['OWRL_SITES_URL'] = sites.url;
      out(`sites up at ${sites.url}/ (${settings.vars['OWRL_SUITES'] ?? ''})`);
    }
    const sitesHost = sites?.host ?? (sitesGiven ? new URL(sitesGiven).host : undefined);
    const view = { ...overlayEnv(settings.vars, env), ...own };
    // fleet.allow_hosts (or OWRL_ALLOW_HOSTS over it), and the bundled sites.
    const allowHosts = [...(view['OWRL_ALLOW_HOSTS'] ?? '').split(',').map((h) => h.trim()).filter((h) => h !== ''), ...(sitesHost ? [sitesHost] : [])];

    const pre = await runPreflight({ loaded, settings: view, allowHosts, signal: AbortSignal.timeout(120_000) }, args.skip, out);
    if (!pre.ok) throw new TrainRefused(`the preflight failed: ${pre.lines.filter((l) => !l.ok).map((l) => l.name).join(', ')} (fix what it says, or --skip-preflight=NAME to go on without that check)`);
    if (args.check) {
      out(`${loaded.file}: the run file is valid${pre.skipped.length > 0 ? ` (preflight skipped: ${pre.skipped.join(', ')})` : ' and the preflight passed'}`);
      return { checked: true };
    }
    stop.check();

    const started = writeStartedFile(loaded, runDir, { runId, dataDir });
    const controlToken = randomBytes(16).toString('hex');
    const tokenFile = path.join(runDir, 'control.token');
    fs.writeFileSync(tokenFile, `${controlToken}\n`, { mode: 0o600 });
    const chromium = sites !== null && !view['OWRL_CHROMIUM'] ? bundledSitesChromium({ ...env, OWRL_CHROMIUM: view['OWRL_CHROMIUM'] }) : undefined;
    if (suites) out(`browsers: ${chromium ?? view['OWRL_CHROMIUM'] ?? "the actor's default"}`);

    let warmup: RunReport['warmup'];
    const initPolicy = path.join(runDir, 'warmup.onnx');
    const warm = run.policy?.warmup?.enabled === true && !args.resume;
    if (warm) {
      const stages = run.recipe?.curriculum ?? [];
      warmup = await runWarmup(
        view['OWRL_SITES_URL'] ?? '',
        sitesHost ?? '',
        initPolicy,
        {
          tasksPerSuite: run.policy?.warmup?.tasks ?? 8,
          epochs: run.policy?.warmup?.epochs ?? 30,
          lr: 0.05,
          temperature: 1,
          maxSteps: stages[0]?.max_steps ?? 6,
          suites: run.tasks.suites ?? [],
          difficulties: run.tasks.difficulties ?? [],
          seed: 0,
        },
        out,
        chromium,
      );
      out(`warm-up done in ${warmup.wall_s} s: held-out success ${(warmup.held_out.rate * 100).toFixed(1)} %; the learner starts from it`);
      stop.check();
    }

    const runFileEnv = { ...own, OWRL_RUN_FILE: started };
    const running: Running = local ? { learner: null, judge: false, actors: 0 } : await detectRunning(view, runId);
    let learnerAddr: string;
    if (running.learner !== null) {
      learnerAddr = running.learner;
      out(`joined the learner of ${runId} at ${learnerAddr}`);
    } else {
      const [grpcPort, artifactPort] = (await freePorts(2)) as [number, number];
      learnerAddr = `127.0.0.1:${grpcPort}`;
      procs.start('learner', serviceMain('learner'), {
        ...runFileEnv,
        OWRL_RUN_ID: runId,
        OWRL_DATA_DIR: dataDir,
        OWRL_GRPC_HOST: '127.0.0.1',
        OWRL_GRPC_PORT: String(grpcPort),
        OWRL_ARTIFACT_HOST: '127.0.0.1',
        OWRL_ARTIFACT_PORT: String(artifactPort),
        OWRL_CONTROL_TOKEN: controlToken,
        ...(args.resume ? { OWRL_RESUME: 'true' } : {}),
        ...(warm ? { OWRL_INIT_POLICY: initPolicy } : {}),
      });
    }
    if (running.judge) out('joined the judge already running');
    else procs.start('judge', serviceMain('judge'), { ...runFileEnv });
    const actors = run.fleet?.actors ?? 2;
    if (running.actors > 0) out('joined the actors already pulling rollouts');
    else {
      for (let i = 0; i < actors; i++) {
        procs.start(`actor-${i + 1}`, serviceMain('actor'), {
          ...runFileEnv,
          OWRL_ACTOR_ID: `actor-${i + 1}`,
          OWRL_ALLOW_HOSTS: allowHosts.join(','),
          ...(chromium !== undefined ? { OWRL_CHROMIUM: chromium } : {}),
        });
      }
    }
    const consolePort = env['OWRL_CONSOLE_PORT'] ? Number(env['OWRL_CONSOLE_PORT']) : await freePort();
    procs.start('console', serviceMain('console'), { ...runFileEnv, OWRL_LEARNER: learnerAddr, OWRL_CONSOLE_HOST: '127.0.0.1', OWRL_CONSOLE_PORT: String(consolePort), OWRL_CONTROL_TOKEN: controlToken });
    out(`learner gRPC at ${learnerAddr} (try: npx owrl status --learner ${learnerAddr})`);
    out(`console at http://127.0.0.1:${consolePort}/ (control token in ${tokenFile})`);
    out(`started ${[running.learner === null ? 'learner' : '', running.judge ? '' : 'judge', running.actors > 0 ? '' : `${actors} actors × ${run.fleet?.slots ?? 4} browser slots`].filter((x) => x !== '').join(', ')}; logs in ${logDir}`);
    const policy = run.policy?.kind ?? 'pointer';
    if (policy === 'openai') out(`policy: ${run.policy?.model ?? ''} at ${run.policy?.base_url ?? ''} (${run.policy?.engine ?? 'vllm'}); updates go to the trainer at ${run.trainer?.address ?? ''}`);
    else if (run.trainer?.kind === 'remote') out(`updates go to the trainer at ${run.trainer.address ?? ''}`);

    client = new LearnerClient(learnerAddr);
    fs.writeFileSync(path.join(runDir, 'learner.addr'), `${learnerAddr}\n`);
    const state = await follow(client, stop, out, args.timeoutS > 0 ? t0 + args.timeoutS * 1000 : Infinity, args.timeoutS);
    if (state.phase === RunPhase.FAILED) throw new Error(`the learner failed: ${state.message}`);
    const report = buildReport(state, (Date.now() - t0) / 1000);
    if (warmup) report.warmup = warmup;
    const files = writeReport(runDir, report);
    if (args.jsonOut) fs.writeFileSync(args.jsonOut, JSON.stringify({ report, state: stateJson(state) }, null, 2));
    out('');
    out(formatState(state));
    out('');
    out(
      `summary: success ${(report.success_first * 100).toFixed(1)} % in round 1 -> ${(report.success_last3 * 100).toFixed(1)} % over the last 3 rounds ` +
        `(1–3-step tasks ${(report.success_last3_easy * 100).toFixed(1)} %), policy v${report.policy_version}, ${report.wall_s} s`,
    );
    const bySite = Object.entries(report.by_suite).map(([k, e]) => `${k} ${(e.first3.rate * 100).toFixed(0)}% -> ${(e.last3.rate * 100).toFixed(0)}%`);
    if (bySite.length > 0) out(`by site (first 3 rounds -> last 3): ${bySite.join(', ')}`);
    out(`report: ${files.markdown} (with plots: ${files.html}); the run file as started: ${path.join(runDir, STARTED_FILE)}`);
    return { report };
  } finally {
    client?.close();
    await procs.stopAll();
    await broker?.dispose();
    stop.close();
    if (args.check) fs.rmSync(logDir, { recursive: true, force: true });
  }
}

/** Prints each round as it finishes until the run ends (FINISHED or FAILED). */
async function follow(client: LearnerClient, stop: StopWatch, out: (line: string) => void, deadline: number, timeoutS: number): Promise<RunState> {
  let printed = 0;
  for (;;) {
    stop.check();
    if (Date.now() > deadline) throw new Error(`the run did not finish within ${timeoutS} s`);
    let state: RunState;
    try {
      state = await client.getRunState(3000);
    } catch {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    // By round number: RunState.rounds thins old rounds on long runs, so indexes shift.
    for (const r of state.rounds) {
      if (Number(r.round) < printed) continue;
      out(formatRound(r, state.roundsTotal));
      printed = Number(r.round) + 1;
    }
    if (state.phase === RunPhase.FINISHED || state.phase === RunPhase.FAILED) return state;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function stateJson(s: RunState): unknown {
  return JSON.parse(JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? undefined : v)));
}

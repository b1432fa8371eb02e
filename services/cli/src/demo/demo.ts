// `owrl demo`: a whole training run on this machine. Starts a JetStream server when NATS_URL is
// unset, then the bundled sites, the learner, the judge and N actors as separate processes; shows
// progress per round, and the web console (owrl console) while it runs; ends with a summary and a
// report (learning curve, failure breakdown, plots). With --policy openai the actors run a model
// behind an OpenAI-compatible endpoint (vLLM, SGLang) and the learner hands every update to the
// trainer at --trainer (owrl.v1.Trainer); the actors make the engine load each new version.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { RunPhase, type RunState } from '@owrl/proto';
import { freePort, freePorts } from '@owrl/nats-server';
import { LearnerClient } from '@owrl/learner-client';
import { formatRound, formatState } from '../format.js';
import { ProcessGroup, StopWatch } from './processes.js';
import { buildReport, writeReport, type RunReport } from './report.js';
import { runWarmup } from './warmup.js';
import { checkDemoPolicy, type DemoOptions } from './demo-options.js';
import { bundledSitesChromium, commonEnv, serviceMain, startActors, startBroker, startJudge, startSites, waitHttp, type Broker } from '../stack.js';

export async function runDemo(o: DemoOptions, out: (line: string) => void): Promise<RunReport> {
  checkDemoPolicy(o);
  const runDir = path.resolve(o.outDir, o.runId);
  fs.mkdirSync(runDir, { recursive: true });
  const procs = new ProcessGroup(path.join(runDir, 'logs'));
  let broker: Broker | null = null;
  let client: LearnerClient | null = null;
  const t0 = Date.now();
  const stop = new StopWatch(procs);
  try {
    broker = await startBroker(out);
    const [grpcPort, artifactPort] = (await freePorts(2)) as [number, number];
    const consolePort = process.env['OWRL_CONSOLE_PORT'] ? Number(process.env['OWRL_CONSOLE_PORT']) : await freePort();
    // Run control (pause/resume, blacklist edits from the console) with a token of this run only.
    const controlToken = randomBytes(16).toString('hex');
    const tokenFile = path.join(runDir, 'control.token');
    fs.writeFileSync(tokenFile, `${controlToken}\n`, { mode: 0o600 });
    const common = commonEnv(broker.url);
    const { url: sitesUrl, host: sitesHost } = await startSites(procs, common);
    await waitHttp(`${sitesUrl}/__owrl/health`, 30_000);
    out(`sites up at ${sitesUrl}/ (${o.suites})`);
    const chromium = bundledSitesChromium();
    out(`browsers: ${chromium ?? "the actor's default (OWRL_CHROMIUM unset, no headless shell installed)"}${process.env['OWRL_CHROMIUM'] ? ' (OWRL_CHROMIUM)' : ''}`);

    let warmup: RunReport['warmup'];
    const initPolicy = path.join(runDir, 'warmup.onnx');
    if (o.warmup) {
      const firstSteps = Number(/^\s*\d+\s*:\s*(\d+)/.exec(o.curriculum)?.[1] ?? 6);
      warmup = await runWarmup(
        sitesUrl,
        sitesHost,
        initPolicy,
        {
          tasksPerSuite: o.warmupTasks,
          epochs: o.warmupEpochs,
          lr: 0.05,
          temperature: 1,
          maxSteps: firstSteps,
          suites: o.suites.split(',').map((x) => x.trim()).filter((x) => x !== ''),
          difficulties: o.difficulties.split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0),
          seed: 0,
        },
        out,
        chromium,
      );
      out(`warm-up done in ${warmup.wall_s} s: held-out success ${(warmup.held_out.rate * 100).toFixed(1)} %; the learner starts from it`);
      stop.check();
    }

    procs.start('learner', serviceMain('learner'), {
      ...common,
      OWRL_RUN_ID: o.runId,
      OWRL_SITES_URL: sitesUrl,
      OWRL_ROUNDS: String(o.rounds),
      OWRL_GROUPS_PER_ROUND: String(o.groupsPerRound),
      OWRL_MAX_GROUPS_PER_ROUND: String(Math.ceil(o.groupsPerRound * 1.5)),
      OWRL_GROUP_SIZE: String(o.groupSize),
      OWRL_CURRICULUM: o.curriculum,
      OWRL_TASK_COUNT: String(o.taskCount),
      ...(o.difficulties ? { OWRL_DIFFICULTIES: o.difficulties } : {}),
      OWRL_SUITES: o.suites,
      OWRL_GRPC_HOST: '127.0.0.1',
      OWRL_GRPC_PORT: String(grpcPort),
      OWRL_ARTIFACT_HOST: '127.0.0.1',
      OWRL_ARTIFACT_PORT: String(artifactPort),
      OWRL_DATA_DIR: path.join(runDir, 'learner'),
      OWRL_CONTROL_TOKEN: controlToken,
      OWRL_MODE: o.mode,
      ...(o.warmup ? { OWRL_INIT_POLICY: initPolicy } : {}),
      ...(o.trainer ? { OWRL_TRAINER: o.trainer } : {}),
    });
    startJudge(procs, common);
    startActors(procs, common, {
      actors: o.actors,
      slots: o.slots,
      allowHosts: [sitesHost],
      chromium,
      ...(o.policy === 'openai' ? { env: { OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: o.baseUrl, OWRL_POLICY_MODEL: o.model, OWRL_POLICY_ENGINE: o.engine } } : {}),
    });
    procs.start('console', serviceMain('console'), {
      ...common,
      OWRL_LEARNER: `127.0.0.1:${grpcPort}`,
      OWRL_CONSOLE_HOST: '127.0.0.1',
      OWRL_CONSOLE_PORT: String(consolePort),
      OWRL_CONTROL_TOKEN: controlToken,
    });
    out(`learner gRPC at 127.0.0.1:${grpcPort} (try: npx owrl status --learner 127.0.0.1:${grpcPort})`);
    out(`console at http://127.0.0.1:${consolePort}/ (control token in ${tokenFile})`);
    out(`started learner, judge and ${o.actors} actors × ${o.slots} browser slots; logs in ${path.join(runDir, 'logs')}`);
    if (o.policy === 'openai') out(`policy: ${o.model} at ${o.baseUrl} (${o.engine}); updates go to the trainer at ${o.trainer}`);
    else if (o.trainer) out(`updates go to the trainer at ${o.trainer}`);

    client = new LearnerClient(`127.0.0.1:${grpcPort}`);
    fs.writeFileSync(path.join(runDir, 'learner.addr'), `127.0.0.1:${grpcPort}\n`);
    let printed = 0;
    let state: RunState | null = null;
    const deadline = t0 + o.timeoutS * 1000;
    for (;;) {
      stop.check();
      if (Date.now() > deadline) throw new Error(`the run did not finish within ${o.timeoutS} s`);
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
      if (state.phase === RunPhase.FINISHED || state.phase === RunPhase.FAILED) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (state.phase === RunPhase.FAILED) throw new Error(`the learner failed: ${state.message}`);
    const report = buildReport(state, (Date.now() - t0) / 1000);
    if (warmup) report.warmup = warmup;
    const files = writeReport(runDir, report);
    if (o.jsonOut) fs.writeFileSync(o.jsonOut, JSON.stringify({ report, state: stateJson(state) }, null, 2));
    out('');
    out(formatState(state));
    out('');
    out(
      `summary: success ${(report.success_first * 100).toFixed(1)} % in round 1 -> ${(report.success_last3 * 100).toFixed(1)} % over the last 3 rounds ` +
        `(1–3-step tasks ${(report.success_last3_easy * 100).toFixed(1)} %), policy v${report.policy_version}, ${report.wall_s} s`,
    );
    const sites = Object.entries(report.by_suite).map(([k, e]) => `${k} ${(e.first3.rate * 100).toFixed(0)}% -> ${(e.last3.rate * 100).toFixed(0)}%`);
    if (sites.length > 0) out(`by site (first 3 rounds -> last 3): ${sites.join(', ')}`);
    out(`report: ${files.markdown} (with plots: ${files.html})`);
    return report;
  } finally {
    client?.close();
    await procs.stopAll();
    await broker?.dispose();
    stop.close();
  }
}

function stateJson(s: RunState): unknown {
  return JSON.parse(JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? undefined : v)));
}

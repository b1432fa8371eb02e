// Every service main serves /metrics and /healthz, scraped from the running processes after a
// short training (so the learner's RL series carry values): sites, learner, judge, actor, console
// and trainer. owrl's own series (every family but prom-client's process_/nodejs_ defaults) pass
// `promtool check metrics` (Debian's prometheus package; owrl's naming rules alone, said in the
// figures, where it is not installed), and the learner exports the RL signals with their units.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunPhase } from '@owrl/proto';
import { checkMetrics, freePorts, ServiceProcess, startSystem, waitUntil } from '@owrl/testkit';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The families of `text` other than prom-client's default process_/nodejs_ ones (owrl's own series). */
function ownSeries(text: string): string {
  return text
    .split('\n')
    .filter((l) => !/^(# (HELP|TYPE) )?owrl_(process|nodejs)_/.test(l))
    .join('\n');
}

/** Family names (from TYPE lines) of an exposition. */
const families = (text: string): string[] => [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] ?? '');

// The RL signals the learner must export (docs/design.md §9): name → kind.
const LEARNER_SIGNALS: Record<string, string> = {
  owrl_learner_reward_mean: 'gauge',
  owrl_learner_groups_total: 'counter',
  owrl_learner_update_clip_fraction_ratio: 'gauge',
  owrl_learner_update_approx_kl_nats: 'gauge',
  owrl_learner_staleness_versions: 'histogram',
  owrl_learner_update_seconds: 'histogram',
  owrl_learner_weight_sync_seconds: 'histogram',
  owrl_learner_queue_lag_seconds: 'histogram',
  owrl_learner_rollouts_dispatched_total: 'counter',
  owrl_learner_terminations_total: 'counter',
};

void test('every service serves /healthz and /metrics; owrl\'s series pass promtool check metrics; the learner exports the RL signals', { timeout: 5 * 60_000 }, async () => {
  const [sitesMetrics, consolePort, consoleMetrics, trainerPort, trainerMetrics] = (await freePorts(5)) as [number, number, number, number, number];
  const sys = await startSystem({
    actors: 1,
    slots: 2,
    sitesEnv: { OWRL_METRICS_PORT: String(sitesMetrics) },
    learnerEnv: { OWRL_ROUNDS: '1', OWRL_GROUPS_PER_ROUND: '1', OWRL_GROUP_SIZE: '2', OWRL_CURRICULUM: '1:3', OWRL_DIFFICULTIES: '1', OWRL_TASK_COUNT: '12' },
  });
  const extra: ServiceProcess[] = [];
  try {
    const common = { PATH: process.env['PATH'] ?? '', NATS_URL: sys.natsUrl, OWRL_LOG_LEVEL: 'info' };
    const console_ = new ServiceProcess({
      name: 'console',
      script: path.join(ROOT, 'services', 'console', 'dist', 'src', 'main.js'),
      env: { ...common, OWRL_LEARNER: sys.grpcAddress, OWRL_CONSOLE_PORT: String(consolePort), OWRL_METRICS_PORT: String(consoleMetrics) },
      logFile: path.join(sys.logDir, 'console.log'),
    });
    const trainerDir = fs.mkdtempSync(path.join(sys.logDir, 'trainer-'));
    const trainer = new ServiceProcess({
      name: 'trainer',
      script: path.join(ROOT, 'services', 'trainer', 'dist', 'src', 'main.js'),
      env: { ...common, OWRL_TRAINER_DIR: trainerDir, OWRL_TRAINER_HOST: '127.0.0.1', OWRL_TRAINER_PORT: String(trainerPort), OWRL_TRAINER_DIM: '1024', OWRL_METRICS_PORT: String(trainerMetrics) },
      logFile: path.join(sys.logDir, 'trainer.log'),
    });
    extra.push(console_, trainer);
    for (const p of extra) p.start();

    // A finished round: the learner's update and weight-sync series have observations.
    const final = await sys.waitForPhase(RunPhase.FINISHED);
    assert.equal(final.rounds.length, 1);

    const endpoints: Array<[string, string]> = [
      ['sites', `http://127.0.0.1:${sitesMetrics}`],
      ['learner', sys.metricsUrl('learner')],
      ['judge', sys.metricsUrl('judge')],
      ['actor', sys.metricsUrl('actor-1')],
      ['console', `http://127.0.0.1:${consoleMetrics}`],
      ['trainer', `http://127.0.0.1:${trainerMetrics}`],
    ];
    const figures: Record<string, unknown> = {};
    const texts: Record<string, string> = {};
    for (const [name, base] of endpoints) {
      const health = await waitUntil(`${name} /healthz 200`, async () => {
        const r = await fetch(`${base}/healthz`).catch(() => null);
        return r?.status === 200 ? r : undefined;
      }, { timeoutMs: 60_000, intervalMs: 250 });
      assert.equal(await health.text(), 'ok\n', `${name} /healthz body`);
      const r = await fetch(`${base}/metrics`);
      assert.equal(r.status, 200, `${name} /metrics`);
      assert.match(r.headers.get('content-type') ?? '', /^text\/plain/, `${name} /metrics content type`);
      const text = await r.text();
      texts[name] = text;
      const check = checkMetrics(ownSeries(text));
      figures[name] = { tool: check.tool, families: check.families, all_families: families(text).length, problems: check.problems };
      assert.deepEqual(check.problems, [], `${name}: owrl's series pass the checks`);
      assert.ok(families(text).some((f) => f.startsWith(`owrl_process_`)), `${name} also exports the process series`);
    }
    console.log(JSON.stringify({ metrics_endpoints: figures }));

    const learnerFamilies = new Map([...(texts['learner'] ?? '').matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']));
    for (const [name, kind] of Object.entries(LEARNER_SIGNALS)) assert.equal(learnerFamilies.get(name), kind, `learner exports ${name} as a ${kind}`);
    // Values, not only declarations: the round's update and its weight sync were observed.
    assert.match(texts['learner'] ?? '', /^owrl_learner_update_seconds_count(\{[^}]*\})? [1-9]/m, 'an update was timed');
    assert.match(texts['learner'] ?? '', /^owrl_learner_rollouts_dispatched_total(\{[^}]*\})? [1-9]/m, 'rollouts were counted');
    assert.match(texts['actor'] ?? '', /^owrl_actor_step_phase_seconds_count\{[^}]*phase="policy"[^}]*\} [1-9]/m, 'step latency by phase');
    assert.equal(sys.failure(), null);
  } finally {
    for (const p of extra) await p.stop(5000);
    await sys.dispose();
  }
});

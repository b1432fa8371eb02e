// Preflight: the task pool loads, a sample of its start URLs answers through the actors' fence
// (one URL per host, at most SAMPLE_HOSTS hosts), and tasks without a verifier have a judge model.
import type { Task } from '@owrl/proto';
import { parseTaskLine, readTaskFile } from '@owrl/tasks';
import { PreflightFence } from './fence-fetch.js';
import { why, type CheckLine, type PreflightContext } from './preflight-check.js';

/** Start hosts sampled. */
export const SAMPLE_HOSTS = 5;
const URL_TIMEOUT_MS = 10_000;

/** The task pool as the learner will load it (task files, then the bundled suites). */
export async function loadTaskPool(settings: PreflightContext['settings']): Promise<{ tasks: Task[]; sources: string[] }> {
  const tasks: Task[] = [];
  const sources: string[] = [];
  const files = (settings['OWRL_TASKS_FILE'] ?? '').split(',').filter((f) => f !== '');
  for (const f of files) {
    const got = await readTaskFile(f);
    tasks.push(...got);
    sources.push(`${got.length} from ${f}`);
  }
  const sitesUrl = settings['OWRL_SITES_URL'] ?? '';
  const suites = (settings['OWRL_SUITES'] ?? (files.length > 0 ? '' : 'shop')).split(',').filter((s) => s !== '');
  if (sitesUrl !== '') {
    for (const suite of suites) {
      const url = new URL('/__owrl/tasks', sitesUrl);
      url.searchParams.set('suite', suite);
      url.searchParams.set('seed', settings['OWRL_TASK_SEED'] ?? '7');
      url.searchParams.set('n', settings['OWRL_TASK_COUNT'] ?? '60');
      if (settings['OWRL_DIFFICULTIES']) url.searchParams.set('difficulties', settings['OWRL_DIFFICULTIES']);
      const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${url.href}: HTTP ${res.status}: ${text.slice(0, 200)}`);
      const got = text.split('\n').filter((l) => l.trim() !== '').map((l, i) => parseTaskLine(l, i + 1));
      tasks.push(...got);
      sources.push(`${got.length} from suite ${suite}`);
    }
  }
  return { tasks, sources };
}

export async function checkTasks(ctx: PreflightContext): Promise<CheckLine[]> {
  let pool: { tasks: Task[]; sources: string[] };
  try {
    pool = await loadTaskPool(ctx.settings);
  } catch (e) {
    return [{ name: 'tasks', ok: false, detail: `the task pool does not load: ${why(e)}`, fix: 'check tasks.files (owrl tasks validate FILE) and tasks.sites_url' }];
  }
  if (pool.tasks.length === 0) return [{ name: 'tasks', ok: false, detail: 'the task pool is empty', fix: 'name task files with tasks, or bundled suites' }];
  const lines: CheckLine[] = [{ name: 'tasks', ok: true, detail: `${pool.tasks.length} tasks (${pool.sources.join(', ')})` }];

  const unverified = pool.tasks.filter((t) => t.verifier === undefined || t.verifier.kind.case === undefined);
  const judgeKind = ctx.settings['OWRL_JUDGE_BACKEND'] ?? (ctx.settings['OWRL_JUDGE_API_URL'] ? 'api' : ctx.settings['OWRL_JUDGE_MODEL'] ? 'onnx' : 'verifiers');
  if (unverified.length > 0) {
    lines.push(
      judgeKind === 'verifiers'
        ? { name: 'tasks.verifiers', ok: false, detail: `${unverified.length} of ${pool.tasks.length} tasks have no verifier (e.g. ${unverified[0]?.id ?? ''}) and the judge runs verifiers only: they could never score`, fix: 'set judge.kind onnx (model_dir) or api (url, model) to judge them with a model' }
        : { name: 'tasks.verifiers', ok: true, detail: `${unverified.length} tasks without a verifier are judged by the ${judgeKind} judge model` },
    );
  }

  const byHost = new Map<string, string>();
  for (const t of pool.tasks) {
    let host: string;
    try {
      host = new URL(t.startUrl).host;
    } catch {
      lines.push({ name: 'tasks.urls', ok: false, detail: `task ${t.id} has start URL ${JSON.stringify(t.startUrl)}, not a URL`, fix: 'correct the task file (owrl tasks validate)' });
      return lines;
    }
    if (!byHost.has(host)) byHost.set(host, t.startUrl);
  }
  const sample = [...byHost.values()].slice(0, SAMPLE_HOSTS);
  const fence = await PreflightFence.open(ctx.allowHosts);
  try {
    const answers = await Promise.all(sample.map(async (url) => ({ url, a: await fence.get(url, URL_TIMEOUT_MS) })));
    const bad = answers.filter((x) => x.a.status === 0);
    if (bad.length === 0) {
      lines.push({ name: 'tasks.urls', ok: true, detail: `${sample.length} of ${byHost.size} start hosts answer through the fence (${answers.map((x) => `${new URL(x.url).host} ${x.a.status}`).join(', ')})` });
    } else {
      const first = bad[0] as (typeof bad)[number];
      const refused = bad.some((x) => x.a.refused);
      lines.push({
        name: 'tasks.urls',
        ok: false,
        detail: `${bad.length} of ${sample.length} sampled start hosts (of ${byHost.size}) do not answer through the fence: ${first.url}: ${first.a.problem}${bad.length > 1 ? ` (also ${bad.slice(1).map((x) => new URL(x.url).host).join(', ')})` : ''}`,
        fix: refused ? 'a private host is refused unless listed: add its host:port to fleet.allow_hosts' : 'check the URL, and that this machine (and the actors) can reach it: DNS, proxy, firewall',
      });
    }
  } finally {
    await fence.close();
  }
  return lines;
}

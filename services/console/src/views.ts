// Server-rendered pages of the console (pure: data in, HTML out). The overview's live part is one
// fragment (overviewLive) that the page swaps in place on each server-sent event; the round,
// group and trajectory pages render what the learner's gRPC API returns.
import { escapeXml as esc, hbars, lineChart, stackedBars } from '@owrl/charts';
import {
  RunPhase,
  terminationClassName,
  verdictSourceName,
  type GroupInfo,
  type RoundSummary,
  type RunState,
  type ScoredTrajectory,
  type Step,
} from '@owrl/proto';
import { CLIENT_SCRIPT, STYLE } from './assets.js';

export function phaseName(p: RunPhase): string {
  return (RunPhase[p] ?? 'UNSPECIFIED').toLowerCase();
}

const pct = (v: number): string => (Number.isFinite(v) ? `${Math.round(v * 1000) / 10}%` : '–');
const num = (v: number | bigint): string => String(v);
const ms = (v: number): string => (v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
const mb = (b: bigint | number): string => `${Math.round(Number(b) / (1024 * 1024))} MiB`;
const when = (msEpoch: bigint | number): string => (Number(msEpoch) > 0 ? new Date(Number(msEpoch)).toISOString().replace('T', ' ').slice(0, 19) + 'Z' : '–');

export function layout(title: string, body: string, opts: { live?: boolean; crumbs?: Array<[string, string]> } = {}): string {
  const crumbs = (opts.crumbs ?? []).map(([href, label]) => ` / <a href="${esc(href)}">${esc(label)}</a>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · owrl console</title><style>${STYLE}</style></head>
<body${opts.live ? ' data-live="1"' : ''}><header><a href="/" class="brand">owrl console</a>${crumbs}<span id="conn" class="conn" title="live connection">●</span></header>
<main>${body}</main><script>${CLIENT_SCRIPT}</script></body></html>`;
}

function table(head: string[], rows: string[][], attrs = ''): string {
  if (rows.length === 0) return `<p class="muted">none</p>`;
  return `<table${attrs}><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function keysOf(rounds: RoundSummary[], pick: (r: RoundSummary) => Record<string, number>): string[] {
  const s = new Set<string>();
  for (const r of rounds) for (const k of Object.keys(pick(r))) s.add(k);
  return [...s].sort();
}

/** Charts of the run (also used by tests to find series). */
export function overviewCharts(state: RunState): string {
  const rounds = [...state.rounds].sort((a, b) => Number(a.round - b.round));
  const x = (r: RoundSummary): number => Number(r.round);
  const suites = [...new Set(rounds.flatMap((r) => r.bySuite.map((s) => s.suite)))].sort();
  const curve = lineChart({
    id: 'chart-success',
    title: 'Success per round',
    xLabel: 'round',
    yMin: 0,
    yMax: 1,
    yFormat: pct,
    series: [
      { name: 'all', points: rounds.map((r) => [x(r), r.successRate] as [number, number]) },
      ...suites.map((s) => ({
        name: s,
        points: rounds.flatMap((r) => r.bySuite.filter((b) => b.suite === s && b.episodes > 0).map((b) => [x(r), b.successes / b.episodes] as [number, number])),
      })),
    ],
  });
  const diffs = [...new Set(rounds.flatMap((r) => r.byDifficulty.map((d) => d.difficulty)))].sort((a, b) => a - b);
  const byDiff = lineChart({
    id: 'chart-difficulty',
    title: 'Success by difficulty',
    xLabel: 'round',
    yMin: 0,
    yMax: 1,
    yFormat: pct,
    series: diffs.map((d) => ({
      name: `difficulty ${d}`,
      points: rounds.flatMap((r) => r.byDifficulty.filter((b) => b.difficulty === d && b.episodes > 0).map((b) => [x(r), b.successes / b.episodes] as [number, number])),
    })),
  });
  const cats = rounds.map((r) => Number(r.round));
  const classes = keysOf(rounds, (r) => r.terminations);
  const terms = stackedBars({ id: 'chart-terminations', title: 'Terminations per round', xLabel: 'round', categories: cats, series: classes.map((c) => ({ name: c, values: rounds.map((r) => r.terminations[c] ?? 0) })) });
  const reasons = keysOf(rounds, (r) => r.excluded);
  const excl = stackedBars({ id: 'chart-excluded', title: 'Exclusions per round by cause', xLabel: 'round', categories: cats, series: reasons.map((c) => ({ name: c, values: rounds.map((r) => r.excluded[c] ?? 0) })) });
  const fates = stackedBars({
    id: 'chart-fates',
    title: 'Group fates per round',
    xLabel: 'round',
    categories: cats,
    series: [
      { name: 'kept', values: rounds.map((r) => r.groupsKept), color: '#2ea36b' },
      { name: 'all 0', values: rounds.map((r) => r.groupsDroppedAllZero), color: '#e0533d' },
      { name: 'all 1', values: rounds.map((r) => r.groupsDroppedAllOne), color: '#2f6fde' },
      { name: 'abandoned', values: rounds.map((r) => r.groupsAbandoned), color: '#7a7a7a' },
    ],
  });
  const trained = rounds.filter((r) => r.epochs.length > 0 || r.loss !== 0 || r.clipFraction !== 0);
  const lastEpoch = (r: RoundSummary) => r.epochs[r.epochs.length - 1];
  const health = lineChart({
    id: 'chart-update',
    title: 'Update health (last PPO epoch)',
    xLabel: 'round',
    series: [
      { name: 'loss', points: trained.map((r) => [x(r), lastEpoch(r)?.loss ?? r.loss] as [number, number]) },
      { name: 'clip fraction', points: trained.map((r) => [x(r), lastEpoch(r)?.clipFraction ?? r.clipFraction] as [number, number]) },
      { name: 'approx KL', points: trained.filter((r) => lastEpoch(r)).map((r) => [x(r), lastEpoch(r)?.approxKl ?? NaN] as [number, number]) },
    ],
  });
  let staleness = '';
  const st = state.staleness;
  if (st && st.counts.length > 0) {
    staleness = hbars({
      id: 'chart-staleness',
      title: `Staleness of trained trajectories (max ${st.maxStaleness}; p50 ${st.p50}, p99 ${st.p99}, dropped ${st.dropped})`,
      bars: st.counts.map((c, lag) => ({ label: `${lag} behind`, value: Number(c) })),
    });
  }
  return `<div class="charts">${curve}${byDiff}${terms}${excl}${fates}${health}${staleness}</div>`;
}

function summaryLine(state: RunState): string {
  const c = state.counters;
  const cells: Array<[string, string]> = [
    ['phase', `<span class="phase phase-${phaseName(state.phase)}" id="phase">${esc(phaseName(state.phase))}</span>`],
    ['round', `<span id="round">${num(state.round)}</span>${state.roundsTotal > 0n ? ` / ${num(state.roundsTotal)}` : ''}`],
    ['policy version', `<span id="policy-version">${num(state.policyVersion)}</span>`],
    ['mode', esc(state.mode || '–')],
    ['incarnation', num(state.incarnation)],
    ['trainer', esc(state.trainer?.name || '–')],
    ['dispatched', num(c?.dispatched ?? 0n)],
    ['in flight', num(c?.inFlight ?? 0n)],
    ['trainable', num(c?.trainable ?? 0n)],
    ['excluded', num(c?.excluded ?? 0n)],
    ['updates', num(c?.updates ?? 0n)],
    ['groups kept / all-0 / all-1 / abandoned', `${num(c?.groupsKept ?? 0n)} / ${num(c?.groupsDroppedAllZero ?? 0n)} / ${num(c?.groupsDroppedAllOne ?? 0n)} / ${num(c?.groupsAbandoned ?? 0n)}`],
  ];
  return `<dl class="summary">${cells.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`).join('')}</dl>${
    state.message ? `<p class="message">${esc(state.message)}${state.failureCode ? ` <code>${esc(state.failureCode)}</code>` : ''}</p>` : ''
  }`;
}

function roundsTable(state: RunState): string {
  const rows = [...state.rounds]
    .sort((a, b) => Number(b.round - a.round))
    .map((r) => [
      `<a href="/rounds/${num(r.round)}">${num(r.round)}</a>`,
      num(r.policyVersion),
      num(r.maxSteps),
      `${r.successes}/${r.episodes} (${pct(r.successRate)})`,
      `${r.groupsKept} / ${r.groupsDroppedAllZero} / ${r.groupsDroppedAllOne} / ${r.groupsAbandoned}`,
      esc(Object.entries(r.terminations).map(([k, v]) => `${k} ${v}`).join(', ')),
      esc(Object.entries(r.excluded).map(([k, v]) => `${k} ${v}`).join(', ')),
      r.epochs.length > 0 || r.loss !== 0 ? `${r.loss.toFixed(4)} / ${r.clipFraction.toFixed(3)}` : '–',
      r.meanSteps.toFixed(1),
      r.wallS.toFixed(1),
    ]);
  return table(['round', 'policy', 'max steps', 'success', 'kept / all-0 / all-1 / abandoned', 'terminations', 'excluded', 'loss / clip', 'mean steps', 'wall s'], rows, ' id="rounds"');
}

function judgeBlock(state: RunState): string {
  const j = state.judge;
  if (!j || j.n === 0n) return '<p class="muted">no shadow verdicts (the judge runs one verdict source)</p>';
  return table(
    ['n', 'agreement', 'precision', 'recall', 'F1', 'TP / FP / FN / TN', 'judge version'],
    [[num(j.n), pct(j.agreement), pct(j.precision), pct(j.recall), pct(j.f1), `${j.tp} / ${j.fp} / ${j.fn} / ${j.tn}`, esc(j.judgeVersion)]],
  );
}

function blacklistBlock(state: RunState, nowMs: number): string {
  const rows = state.blacklist.map((b) => [
    `<code>${esc(b.host)}</code>`,
    esc(b.reason),
    num(b.failures),
    `${when(b.untilMs)}${Number(b.untilMs) <= nowMs ? ' <span class="muted">(expired)</span>' : ''}`,
    `<button class="bl-remove" data-host="${esc(b.host)}">remove</button>`,
  ]);
  return `${table(['host', 'reason', 'failures', 'until', ''], rows, ' id="blacklist"')}
<form id="bl-add" class="inline"><input name="host" placeholder="host or host:port" required> <input name="reason" placeholder="reason" value="manual"> <input name="ttl" type="number" min="1" value="30" title="minutes"> min <button>blacklist</button></form>`;
}

function actorsBlock(state: RunState, nowMs: number): string {
  const rows = [...state.actors]
    .sort((a, b) => a.actorId.localeCompare(b.actorId))
    .map((a) => [esc(a.actorId), `${a.busy}/${a.slots}`, num(a.policyVersion), num(a.episodes), mb(a.rssBytes), `${Math.max(0, Math.round((nowMs - Number(a.updatedAtMs)) / 1000))} s ago`]);
  return table(['actor', 'busy / slots', 'policy version', 'episodes', 'RSS', 'heartbeat'], rows, ' id="actors"');
}

function totals(state: RunState): string {
  const t = Object.entries(state.terminations).sort((a, b) => Number(b[1] - a[1]));
  const e = Object.entries(state.excluded).sort((a, b) => Number(b[1] - a[1]));
  return `<div class="cols"><div><h3>Terminations (run)</h3>${table(['class', 'count'], t.map(([k, v]) => [esc(k), num(v)]))}</div><div><h3>Exclusions by cause (run)</h3>${table(['reason', 'count'], e.map(([k, v]) => [esc(k), num(v)]))}</div></div>`;
}

/** The live part of the overview: replaced in place on every update. */
export function overviewLive(state: RunState, nowMs = Date.now()): string {
  return `<div id="live" data-rv="${num(state.resourceVersion)}" data-round="${num(state.round)}">
<h1>Run <code>${esc(state.runId || '–')}</code></h1>${summaryLine(state)}
${overviewCharts(state)}
<h2>Rounds</h2>${roundsTable(state)}
${totals(state)}
<div class="cols"><div><h2>Actors</h2>${actorsBlock(state, nowMs)}</div><div><h2>Judge calibration</h2>${judgeBlock(state)}</div></div>
<h2>Blacklisted hosts</h2>${blacklistBlock(state, nowMs)}
</div>`;
}

export function controlsBlock(): string {
  return `<section class="controls"><label>control token <input id="token" type="password" autocomplete="off" placeholder="OWRL_CONTROL_TOKEN"></label>
<button id="pause">Pause</button> <button id="resume">Resume</button> <span id="control-result" role="status"></span></section>`;
}

export function overviewPage(state: RunState | null, error: string | null): string {
  const body = state
    ? overviewLive(state)
    : `<div id="live"><h1>Waiting for the learner</h1><p class="error">${esc(error ?? 'no run state yet')}</p></div>`;
  return layout('overview', `${controlsBlock()}${body}`, { live: true });
}

export function roundPage(runId: string, round: number, groups: GroupInfo[]): string {
  const rows = groups.map((g) => [
    `<a href="/rounds/${round}/groups/${g.group}">${g.group}</a>`,
    `<span class="fate fate-${esc(g.fate)}">${esc(g.fate)}</span>`,
    `${esc(g.suite)}${g.family ? `/${esc(g.family)}` : ''}`,
    num(g.difficulty),
    `<span title="${esc(g.instruction)}">${esc(g.instruction.slice(0, 80))}</span>`,
    g.rewards.map((r) => r.toFixed(2)).join(' '),
    g.advantages.map((a) => a.toFixed(2)).join(' '),
    esc(g.terminationClasses.join(' ')),
  ]);
  return layout(
    `round ${round}`,
    `<h1>Round ${round} <small class="muted">${esc(runId)}</small></h1><p>${groups.length} groups</p>${table(['group', 'fate', 'site', 'difficulty', 'instruction', 'rewards', 'advantages', 'terminations'], rows, ' id="groups"')}`,
    { crumbs: [[`/rounds/${round}`, `round ${round}`]] },
  );
}

function firstAction(st: Step): string {
  const r = st.results[0];
  if (!r) return st.parseError ? 'unparseable output' : '(no call)';
  return `${r.call?.name ?? '?'}(${shortArgs(r.call?.argsJson ?? '')})`;
}

function shortArgs(json: string): string {
  return json.replace(/^\{|\}$/g, '').slice(0, 60);
}

function verdictLine(s: ScoredTrajectory): string {
  const v = s.verdict;
  if (!s.trainable) return `<span class="excluded">excluded: ${esc(s.excludedReason)}</span>`;
  if (!v) return '–';
  return `<span class="${v.success ? 'ok' : 'fail'}">reward ${v.reward}</span> · ${esc(verdictSourceName(v.source))}`;
}

export function groupPage(round: number, g: GroupInfo, trajs: Array<{ id: string; t: ScoredTrajectory | null; error?: string }>): string {
  const cols = trajs.map(({ id, t, error }, i) => {
    if (!t) return `<div class="rollout"><h3>sample ${i}</h3><p class="muted"><code>${esc(id)}</code></p><p class="error">${esc(error ?? 'not available')}</p></div>`;
    const tr = t.trajectory;
    const term = tr?.termination;
    const steps = (tr?.steps ?? [])
      .map(
        (st) =>
          `<li><a href="/trajectory?id=${encodeURIComponent(id)}&step=${st.index}">${st.screenshot?.sha256 ? `<img class="thumb" loading="lazy" src="/shots/${esc(st.screenshot.sha256)}" alt="">` : ''}<span>${st.index}. ${esc(firstAction(st))}</span></a></li>`,
      )
      .join('');
    return `<div class="rollout"><h3><a href="/trajectory?id=${encodeURIComponent(id)}">sample ${i}</a> ${verdictLine(t)}</h3>
<p>advantage ${g.advantages[i]?.toFixed(2) ?? '–'} · ${esc(terminationClassName(term?.class))} <code>${esc(term?.reason ?? '')}</code> · policy v${num(tr?.policyVersion ?? 0n)}</p>
${tr?.finalAnswer ? `<p>answer: <q>${esc(tr.finalAnswer)}</q></p>` : ''}<ol class="steps">${steps}</ol></div>`;
  });
  return layout(
    `round ${round} group ${g.group}`,
    `<h1>Round ${round}, group ${g.group} <span class="fate fate-${esc(g.fate)}">${esc(g.fate)}</span></h1>
<p><b>${esc(g.suite)}${g.family ? `/${esc(g.family)}` : ''}</b>, difficulty ${g.difficulty}, task <code>${esc(g.taskId)}</code>: ${esc(g.instruction)}</p>
<div class="side-by-side">${cols.join('')}</div>`,
    { crumbs: [[`/rounds/${round}`, `round ${round}`], [`/rounds/${round}/groups/${g.group}`, `group ${g.group}`]] },
  );
}

interface Pt {
  x: number;
  y: number;
}

/** Points a step acted on (for the marker on its screenshot). */
export function stepPoints(st: Step): Pt[] {
  const out: Pt[] = [];
  for (const r of st.results) for (const p of r.points) out.push({ x: p.x, y: p.y });
  return out;
}

function stepView(id: string, st: Step, shown: boolean): string {
  const ref = st.screenshot;
  const pts = stepPoints(st);
  let shot = '<p class="muted">no screenshot kept for this step</p>';
  if (ref?.sha256) {
    const w = ref.width || 1280;
    const h = ref.height || 800;
    const marks = pts
      .map((p, k) => `<circle class="mark" data-x="${p.x}" data-y="${p.y}" cx="${p.x}" cy="${p.y}" r="${Math.max(10, w / 90)}" fill="none" stroke="#e0533d" stroke-width="${Math.max(3, w / 400)}"/><text x="${p.x + 14}" y="${p.y - 12}" fill="#e0533d" font-size="${Math.max(16, w / 70)}" font-weight="700">${k + 1}</text>`)
      .join('');
    shot = `<div class="shot"><img src="/shots/${esc(ref.sha256)}" data-sha256="${esc(ref.sha256)}" alt="screenshot of step ${st.index}" width="${w}" height="${h}"><svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none">${marks}</svg></div>`;
  }
  const calls = st.results
    .map((r) => {
      const fx = r.effects.map((e) => `<li><code>${esc(e.line)}</code>${Object.keys(e.evidence).length ? ` <small class="muted">${esc(Object.entries(e.evidence).map(([k, v]) => `${k}=${v}`).join(' '))}</small>` : ''}</li>`).join('');
      return `<li class="call ${r.ok ? 'ok' : 'fail'}"><code class="call-name">${esc(r.call?.name ?? '?')}</code> <code class="args">${esc(r.call?.argsJson ?? '')}</code> ${r.ok ? '✓' : `✗ <code>${esc(r.errorCode)}</code>`} <small class="muted">${ms(r.latencyMs)}${r.points.length ? ` · at ${r.points.map((p) => `(${p.x}, ${p.y})`).join(' → ')}` : ''}</small><ul class="effects">${fx}</ul></li>`;
    })
    .join('');
  const t = st.timing;
  const trace = st.trace?.kind;
  let traceLine = '';
  if (trace?.case === 'pointer') {
    const p = trace.value;
    traceLine = `<p class="muted">pointer policy: chose ${p.chosen} of ${p.numCandidates} candidates${p.candidateLabels[p.chosen] ? ` (<code>${esc(p.candidateLabels[p.chosen] ?? '')}</code>)` : ''}, log π ${p.logprob.toFixed(3)}, T ${p.temperature}</p>`;
  } else if (trace?.case === 'tokens') {
    traceLine = `<p class="muted">model ${esc(trace.value.model)}: ${trace.value.tokenIds.length} completion tokens, ${trace.value.promptTokens} prompt tokens, finish ${esc(trace.value.finishReason)}</p>`;
  }
  return `<section class="step" id="step-${st.index}" data-step="${st.index}"${shown ? '' : ' hidden'}>
<h2>Step ${st.index}</h2>
<div class="step-grid">${shot}<div class="step-text">
<p class="url">URL <code>${esc(st.urlBefore)}</code>${st.urlAfter && st.urlAfter !== st.urlBefore ? ` → <code>${esc(st.urlAfter)}</code>` : ''}</p>
<h3>Reasoning</h3><pre class="reasoning">${esc(st.reasoning || '(none)')}</pre>${st.parseError ? '<p class="fail">unparseable output</p>' : ''}
<h3>Tool calls</h3><ol class="calls">${calls || '<li class="muted">none</li>'}</ol>${traceLine}
<p class="muted">policy ${ms(t?.policyMs ?? 0)} · action ${ms(t?.actionMs ?? 0)} · settle ${ms(t?.settleMs ?? 0)} · observe ${ms(t?.observeMs ?? 0)}</p>
${st.rawOutput ? `<details><summary>raw model output</summary><pre>${esc(st.rawOutput)}</pre></details>` : ''}
</div></div></section>`;
}

export function trajectoryPage(id: string, s: ScoredTrajectory, step: number): string {
  const tr = s.trajectory;
  const req = tr?.request;
  const term = tr?.termination;
  const d = tr?.diagnostics;
  const v = s.verdict;
  const steps = tr?.steps ?? [];
  const shownStep = steps.some((st) => st.index === step) ? step : (steps[0]?.index ?? 0);
  const nav = steps
    .map((st) => `<li><a href="?id=${encodeURIComponent(id)}&step=${st.index}" data-step="${st.index}"${st.index === shownStep ? ' class="current"' : ''}>${st.index}. ${esc(firstAction(st))}</a></li>`)
    .join('');
  const diag = d
    ? table(
        ['wall', 'policy', 'action', 'settle', 'observe', 'init attempts', 'HTTP', 'Chromium PSS', 'browser uptime / episodes', 'final URL'],
        [
          [
            ms(d.wallMs),
            ms(d.latencyTotal?.policyMs ?? 0),
            ms(d.latencyTotal?.actionMs ?? 0),
            ms(d.latencyTotal?.settleMs ?? 0),
            ms(d.latencyTotal?.observeMs ?? 0),
            num(d.initAttempts),
            num(d.httpStatus),
            mb(d.chromiumPssBytes),
            `${d.browserUptimeS.toFixed(0)} s / ${d.browserEpisodes}`,
            `<code>${esc(d.finalUrl)}</code>`,
          ],
        ],
      ) +
      (d.errorName || d.errorMessage ? `<details><summary>error ${esc(d.errorName)}: ${esc(d.errorMessage)}</summary><pre>${esc(d.errorStack)}</pre></details>` : '') +
      (d.blockedTotal > 0
        ? `<details id="fence"><summary>the browser fence refused ${d.blockedTotal} connection${d.blockedTotal === 1 ? '' : 's'}</summary><ul>${d.blocked.map((b) => `<li><code>${esc(b.url)}</code> ${esc(b.reason)} (${esc(b.range)}): ${esc(b.detail)}</li>`).join('')}</ul></details>`
        : '')
    : '';
  const parts = id.split('/');
  const round = Number(req?.round ?? parts[1] ?? 0);
  const group = Number(req?.group ?? parts[2] ?? 0);
  const body = `<h1>Trajectory <code>${esc(id)}</code></h1>
<p class="task"><b>${esc(req?.task?.suite ?? '')}</b> ${esc(req?.task?.instruction ?? '')} <small class="muted">start <code>${esc(req?.task?.startUrl ?? '')}</code>, max ${req?.maxSteps ?? 0} steps, actor ${esc(tr?.actorId ?? '')}, policy v${num(tr?.policyVersion ?? 0n)}</small></p>
<div class="cols"><div><h3>Termination</h3><p id="termination"><b>${esc(terminationClassName(term?.class))}</b> <code>${esc(term?.reason ?? '')}</code> ${esc(term?.message ?? '')}</p>
${tr?.calledDone ? `<p>done(<q>${esc(tr.finalAnswer)}</q>)</p>` : ''}</div>
<div><h3>Verdict</h3><p id="verdict">${
    s.trainable && v
      ? `<b class="${v.success ? 'ok' : 'fail'}">${v.success ? 'success' : 'failure'}</b>, reward ${v.reward}, source <b>${esc(verdictSourceName(v.source))}</b>${v.judgeVersion ? `, judge ${esc(v.judgeVersion)}` : ''}${v.pSuccess ? `, p ${v.pSuccess.toFixed(3)}` : ''}${v.detail ? ` <small>${esc(v.detail)}</small>` : ''}`
      : `<span class="excluded">excluded: ${esc(s.excludedReason)}</span>`
  }${s.shadow ? `<br><small class="muted">shadow: ${esc(verdictSourceName(s.shadow.source))} says ${s.shadow.success ? 'success' : 'failure'}${s.shadow.pSuccess ? ` (p ${s.shadow.pSuccess.toFixed(3)})` : ''}</small>` : ''}</p></div></div>
<h3>Diagnostics</h3>${diag}
<div class="viewer"><nav><ol class="step-list">${nav || '<li class="muted">no steps</li>'}</ol></nav><div>${steps.map((st) => stepView(id, st, st.index === shownStep)).join('')}</div></div>`;
  return layout(`trajectory ${id}`, body, {
    crumbs: [
      [`/rounds/${round}`, `round ${round}`],
      [`/rounds/${round}/groups/${group}`, `group ${group}`],
      [`/trajectory?id=${encodeURIComponent(id)}`, `sample ${req?.sample ?? parts[3] ?? ''}`],
    ],
  });
}

export function errorPage(status: number, message: string): string {
  return layout(`error ${status}`, `<h1>${status}</h1><p class="error">${esc(message)}</p>`);
}

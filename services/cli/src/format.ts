// Human-readable rendering of run state for the terminal.
import { RunPhase, type RoundSummary, type RunState } from '@owrl/proto';

export function phaseName(p: RunPhase): string {
  return RunPhase[p] ?? 'UNSPECIFIED';
}

function kv(m: Record<string, number | bigint>): string {
  const parts = Object.entries(m)
    .filter(([, v]) => Number(v) > 0)
    .sort((a, b) => Number(b[1]) - Number(a[1]))
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(' ') : '-';
}

export function formatRound(r: RoundSummary, total: bigint | number): string {
  const pct = (x: number) => `${(x * 100).toFixed(0).padStart(3)}%`;
  const byD = r.byDifficulty.map((d) => `d${d.difficulty}:${d.episodes ? pct(d.successes / d.episodes).trim() : '-'}`).join(' ');
  return [
    `round ${String(Number(r.round) + 1).padStart(3)}/${total}`,
    `policy v${r.policyVersion}`,
    `success ${pct(r.successRate)} (${r.successes}/${r.episodes})`,
    `groups kept ${r.groupsKept} dropped ${r.groupsDroppedAllZero}×all-0 ${r.groupsDroppedAllOne}×all-1`,
    `[${byD}]`,
    `terminations ${kv(r.terminations)}`,
    Object.keys(r.excluded).length ? `excluded ${kv(r.excluded)}` : '',
    r.epochs.length ? `update ${r.epochs.map((e) => `e${e.epoch}: clip ${pct(e.clipFraction).trim()} kl ${e.approxKl.toFixed(3)} lr ${e.learningRate.toPrecision(2)}`).join(', ')}` : '',
    `${r.wallS.toFixed(1)}s`,
  ]
    .filter(Boolean)
    .join('  ');
}

export function formatState(s: RunState): string {
  const c = s.counters;
  const lines = [
    `run ${s.runId}  phase ${phaseName(s.phase)}  mode ${s.mode}${s.message ? `  (${s.message})` : ''}`,
    `round ${s.round}/${s.roundsTotal}  policy v${s.policyVersion}`,
  ];
  if (c) {
    lines.push(
      `rollouts dispatched ${c.dispatched} (re-dispatched ${c.redispatched})  scored ${c.scoredIngested} = trainable ${c.trainable} + excluded ${c.excluded}  in flight ${c.inFlight}`,
      `groups kept ${c.groupsKept}  dropped all-0 ${c.groupsDroppedAllZero}  all-1 ${c.groupsDroppedAllOne}  abandoned ${c.groupsAbandoned}  updates ${c.updates}`,
      `duplicates dropped ${c.duplicatesDropped}  late dropped ${c.lateDropped}`,
    );
  }
  const f = s.failureRules;
  if (f) {
    const blame = f.timeoutBlame === 'timings' ? `timings (policy from ${Math.round(f.timeoutPolicyShare * 100)}% of the wall time)` : f.timeoutBlame;
    lines.push(
      `failure rules: timeouts blamed by ${blame}, ${f.maxAttempts} attempt(s) a sample, spent budget: ${f.exhaustedGroups} group` +
        (c ? `  -> timeouts policy ${c.timeoutsPolicy} site ${c.timeoutsSite}  groups exhausted ${c.groupsExhausted}  samples not sent ${c.samplesNotSent} refused ${c.samplesRefused}` : ''),
    );
  }
  lines.push(`terminations ${kv(s.terminations)}`);
  if (Object.keys(s.excluded).length) lines.push(`excluded ${kv(s.excluded)}`);
  const j = s.judge;
  if (j !== undefined && j.n > 0n) {
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    lines.push(
      `judge ${j.judgeVersion} vs verifiers (shadow, n=${j.n}): agreement ${pct(j.agreement)}  precision ${pct(j.precision)}  recall ${pct(j.recall)}  F1 ${j.f1.toFixed(3)}  (tp ${j.tp} fp ${j.fp} fn ${j.fn} tn ${j.tn})`,
    );
  }
  const last = s.rounds[s.rounds.length - 1];
  if (last) lines.push(`last ${formatRound(last, s.roundsTotal)}`);
  const op = [...s.rounds].reverse().find((r) => r.offPolicy)?.offPolicy;
  if (op) {
    lines.push(
      `off-policy (latest update): engine/trainer log-prob gap max ${op.logprobGapMaxAbs.toExponential(2)} mean ${op.logprobGapMeanAbs.toExponential(2)} over ${op.parityTokens} tokens  ESS ${op.ess.toFixed(3)}  ${op.correction} truncated ${op.truncatedTokens}  positive-advantage gain ${op.positiveLogprobGain.toFixed(4)} nats`,
    );
  }
  return lines.join('\n');
}

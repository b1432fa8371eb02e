// Runs the preflight's checks in order, printing one line per check as it finishes; skipped
// checks are said loudly. The run goes on only when every check that ran passed.
import { checkJudge } from './judge-check.js';
import { checkNats } from './nats-check.js';
import { checkPolicy } from './policy-check.js';
import { formatCheckLine, why, PREFLIGHT_CHECKS, type CheckLine, type PreflightCheckName, type PreflightContext, type PreflightRun } from './preflight-check.js';
import { checkTasks } from './tasks-check.js';
import { checkTrainer } from './trainer-check.js';

const RUNS: Record<PreflightCheckName, PreflightRun> = { nats: checkNats, tasks: checkTasks, policy: checkPolicy, trainer: checkTrainer, judge: checkJudge };

export interface PreflightResult {
  ok: boolean;
  lines: CheckLine[];
  skipped: PreflightCheckName[];
}

export async function runPreflight(ctx: PreflightContext, skip: readonly PreflightCheckName[], out: (line: string) => void): Promise<PreflightResult> {
  const lines: CheckLine[] = [];
  const skipped = PREFLIGHT_CHECKS.filter((c) => skip.includes(c));
  if (skipped.length > 0) {
    out(`preflight SKIPPED ${skipped.join(', ')} (--skip-preflight): ${skipped.length === PREFLIGHT_CHECKS.length ? 'nothing was checked; a broken setup shows only once the run fails' : 'those parts were not checked'}`);
  }
  for (const name of PREFLIGHT_CHECKS) {
    if (skip.includes(name)) continue;
    let got: CheckLine[];
    try {
      got = await RUNS[name](ctx);
    } catch (e) {
      got = [{ name, ok: false, detail: `the check failed: ${why(e)}` }];
    }
    for (const l of got) out(formatCheckLine(l));
    lines.push(...got);
  }
  const failed = lines.filter((l) => !l.ok).length;
  if (lines.length > 0) out(failed === 0 ? `preflight passed (${lines.length} checks)` : `preflight FAILED: ${failed} of ${lines.length} checks`);
  return { ok: failed === 0, lines, skipped };
}

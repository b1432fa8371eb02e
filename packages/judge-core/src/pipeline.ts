// The reward pipeline (docs/design.md §7): infrastructure terminations are excluded, then the format
// check, then the rule filter (no done() → 0), then the first verdict source that can judge.
// Judge failures and timeouts are exclusions, never rewards. Pure apart from what the sources do.
import { FORMAT_ZERO_CLASSES, INFRASTRUCTURE_CLASSES, outcomeKey, type TerminationClassName } from '@owrl/core';
import { make, TerminationClass, terminationClassFromName, VerdictSchema, VerdictSource, type Trajectory, type Verdict } from '@owrl/proto';
import { JudgeError, JudgeErrorCode } from './errors.js';
import { ExcludedReason, type JudgeOutcome } from './outcome.js';
import { verifierSource, type SourceResult, type VerdictProvider } from './verdict-source.js';
import type { Verifiers } from './verifiers.js';

export interface JudgeDeps {
  verifiers: Verifiers;
  /** Written into every verdict. */
  judgeVersion: string;
  /** Budget of each verdict source per trajectory (site-state HTTP included), in milliseconds. */
  timeoutMs: number;
  /**
   * Sources consulted in order after the task's verifier, when the earlier ones decline (e.g. a
   * judge model for tasks without a verifier).
   */
  sources?: readonly VerdictProvider[];
  /**
   * Shadow mode (docs/design.md §7): when the task's verifier decides, this source (the judge model) also
   * judges the trajectory, concurrently; its verdict is recorded next to the reward but never
   * changes it. Its failures only leave the shadow empty.
   */
  shadow?: VerdictProvider;
  /** Aborts in-flight source calls (shutdown); they then end as excluded. */
  signal?: AbortSignal;
}

// The class sets of @owrl/core, as wire enum values.
const wire = (names: ReadonlySet<TerminationClassName>): ReadonlySet<TerminationClass> => new Set([...names].map(terminationClassFromName));
const INFRASTRUCTURE = wire(INFRASTRUCTURE_CLASSES);
const FORMAT = wire(FORMAT_ZERO_CLASSES);

/**
 * Decides the reward of one trajectory.
 * @throws JudgeError JUDGE_INVALID_CONFIG when `judgeVersion` is empty or `timeoutMs` is not > 0;
 *   nothing else (source failures become `{ kind: 'excluded' }`).
 */
export async function judgeTrajectory(traj: Trajectory, deps: JudgeDeps): Promise<JudgeOutcome> {
  if (deps.judgeVersion === '') throw new JudgeError(JudgeErrorCode.InvalidConfig, 'judgeVersion must not be empty');
  if (!Number.isFinite(deps.timeoutMs) || deps.timeoutMs <= 0) {
    throw new JudgeError(JudgeErrorCode.InvalidConfig, `timeoutMs must be a positive number of milliseconds, got ${deps.timeoutMs}`);
  }
  const cls = traj.termination?.class ?? TerminationClass.UNSPECIFIED;
  const reasonCode = traj.termination?.reason || 'unspecified';
  const className = TerminationClass[cls] ?? `CLASS_${cls}`;
  const verdict = (source: VerdictSource, success: boolean, detail: string, pSuccess?: number, version = deps.judgeVersion): JudgeOutcome => ({
    kind: 'scored',
    verdict: makeVerdict(version, source, success, detail, pSuccess),
  });

  if (INFRASTRUCTURE.has(cls)) {
    return { kind: 'excluded', reason: outcomeKey(className, reasonCode), detail: traj.termination?.message ?? '' };
  }
  if (FORMAT.has(cls)) return verdict(VerdictSource.FORMAT, false, `terminated by ${className}:${reasonCode}`);
  if (cls === TerminationClass.UNSPECIFIED || TerminationClass[cls] === undefined) {
    return { kind: 'excluded', reason: ExcludedReason.InvalidTrajectory, detail: `termination class ${cls} is not a known class` };
  }
  if (cls === TerminationClass.STEP_BUDGET_EXHAUSTED || !traj.calledDone) {
    return verdict(VerdictSource.RULE, false, `no done(): terminated by ${className}:${reasonCode}`);
  }

  const verifier = verifierSource(deps.verifiers);
  // The shadow runs alongside the verifier; it is only awaited when the verifier decides.
  let shadowRun: Promise<SourceResult | null> | undefined;
  const startShadow = (): Promise<SourceResult | null> | undefined => {
    if (deps.shadow === undefined) return undefined;
    shadowRun ??= runSource(deps.shadow, traj, deps);
    return shadowRun;
  };
  if (traj.request?.task?.verifier !== undefined) void startShadow()?.catch(() => null);
  for (const source of [verifier, ...(deps.sources ?? [])]) {
    const r = await runSource(source, traj, deps);
    if (r === null) continue;
    if (r.kind === 'unavailable') return { kind: 'excluded', reason: r.reason, detail: r.detail };
    const out = verdict(source.source, r.success, r.detail, r.pSuccess, source.version);
    const shadow = source === verifier ? startShadow() : undefined;
    if (shadow === undefined || out.kind !== 'scored') return out;
    const s = await shadow;
    if (s === null) return out;
    if (s.kind === 'unavailable') return { ...out, shadowUnavailable: s.reason };
    const sh = deps.shadow;
    return { ...out, shadow: makeVerdict(sh?.version ?? deps.judgeVersion, sh?.source ?? VerdictSource.MODEL, s.success, s.detail, s.pSuccess) };
  }
  return { kind: 'excluded', reason: ExcludedReason.NoVerdictSource, detail: 'the task has no verifier and no other verdict source can judge it' };
}

function makeVerdict(judgeVersion: string, source: VerdictSource, success: boolean, detail: string, pSuccess?: number): Verdict {
  return make(VerdictSchema, {
    reward: success ? 1 : 0,
    success,
    source,
    judgeVersion,
    detail,
    ...(pSuccess !== undefined ? { pSuccess } : {}),
  });
}

// Runs one source under the deadline: a source that ignores its signal still cannot hold the
// trajectory past `timeoutMs`. The timer is a ref'd setTimeout (AbortSignal.timeout is unref'd,
// so a hung source could otherwise let a short-lived process exit with the verdict pending).
async function runSource(source: VerdictProvider, traj: Trajectory, deps: JudgeDeps): Promise<SourceResult | null> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new DOMException(`${source.name} timed out`, 'TimeoutError')), deps.timeoutMs);
  const signal = deps.signal ? AbortSignal.any([deadline.signal, deps.signal]) : deadline.signal;
  const unavailable = (): SourceResult => ({
    kind: 'unavailable',
    reason: `judge:${source.name}_unavailable`,
    detail: deadline.signal.aborted ? `${source.name} timed out after ${deps.timeoutMs} ms` : `${source.name} aborted`,
  });
  let onAbort = (): void => {};
  const aborted = new Promise<SourceResult>((resolve) => {
    onAbort = () => resolve(unavailable());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    if (signal.aborted) return unavailable();
    return await Promise.race([source.judge(traj, { judgeVersion: deps.judgeVersion, timeoutMs: deps.timeoutMs, signal }), aborted]);
  } catch (e) {
    return { kind: 'unavailable', reason: `judge:${source.name}_error`, detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

// Converts an episode result of the browser environment into the wire Trajectory, and keeps the
// encoded message under the bus payload limit (the final screenshot and candidate labels go first).
import type { EffectRecord, EpisodeResult, EpisodeStep } from '@owrl/browser-env';
import type { TerminationReason } from '@owrl/core';
import {
  BlockedConnectionSchema,
  DiagnosticsSchema,
  effectKindFromName,
  EffectSchema,
  encodeTrajectory,
  make,
  PageEvalSchema,
  PointSchema,
  PolicyTraceSchema,
  StepSchema,
  StepTimingSchema,
  TerminationClass,
  terminationClassFromName,
  TerminationSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  type PolicyTrace,
  type RolloutRequest,
  type Trajectory,
} from '@owrl/proto';

function effect(e: EffectRecord) {
  return make(EffectSchema, { kind: effectKindFromName(e.kind), line: e.line, evidence: e.evidence });
}

function step(s: EpisodeStep<PolicyTrace>) {
  return make(StepSchema, {
    index: s.index,
    reasoning: s.reasoning,
    results: s.results.map((r) =>
      make(ToolResultSchema, {
        call: make(ToolCallSchema, { name: r.call.name, argsJson: JSON.stringify(r.call.args) }),
        ok: r.ok,
        effects: r.effects.map(effect),
        latencyMs: r.latencyMs,
        errorCode: r.errorCode,
        points: (r.points ?? []).map(([x, y]) => make(PointSchema, { x, y })),
      }),
    ),
    urlBefore: s.urlBefore,
    urlAfter: s.urlAfter,
    ...(s.trace ? { trace: s.trace } : {}),
    timing: make(StepTimingSchema, s.timing),
    rawOutput: s.raw,
    parseError: s.parseError,
  });
}

export interface BuildInput {
  request: RolloutRequest;
  actorId: string;
  policyVersion: number;
  result: EpisodeResult<PolicyTrace>;
  startedAtMs: number;
  actorRssBytes: number;
}

/** Longest URL or detail a refused connection keeps in the diagnostics (a data: URL can be megabytes). */
const BLOCKED_URL_CHARS = 500;

export function buildTrajectory(b: BuildInput): Trajectory {
  const r = b.result;
  const d = r.diagnostics;
  return make(TrajectorySchema, {
    trajectoryId: b.request.trajectoryId,
    request: b.request,
    actorId: b.actorId,
    policyVersion: BigInt(b.policyVersion),
    steps: r.steps.map(step),
    finalAnswer: r.finalAnswer,
    calledDone: r.calledDone,
    termination: make(TerminationSchema, { class: terminationClassFromName(r.termination.cls), reason: r.termination.reason, message: r.termination.message.slice(0, 2000) }),
    diagnostics: make(DiagnosticsSchema, {
      latencyTotal: make(StepTimingSchema, d.latencyTotal),
      chromiumRssBytes: BigInt(Math.max(0, Math.round(d.chromiumRssBytes))),
      chromiumPssBytes: BigInt(Math.max(0, Math.round(d.chromiumPssBytes))),
      browserUptimeS: d.browserUptimeS,
      browserEpisodes: d.browserEpisodes,
      initAttempts: d.initAttempts,
      httpStatus: d.httpStatus,
      finalUrl: d.finalUrl,
      errorName: d.errorName,
      errorMessage: d.errorMessage.slice(0, 2000),
      errorStack: d.errorStack.slice(0, 4000),
      wallMs: d.wallMs,
      actorRssBytes: BigInt(b.actorRssBytes),
      blocked: d.blocked.map((x) => make(BlockedConnectionSchema, { url: x.url.slice(0, BLOCKED_URL_CHARS), reason: x.reason, range: x.range, detail: x.detail.slice(0, BLOCKED_URL_CHARS) })),
      blockedTotal: d.blockedTotal,
    }),
    finalPageEval: make(PageEvalSchema, r.pageEval),
    ...(r.finalScreenshot ? { finalScreenshot: r.finalScreenshot } : {}),
    startedAtMs: BigInt(b.startedAtMs),
    finishedAtMs: BigInt(Date.now()),
  });
}

/** A trajectory for an episode the actor itself could not run (our side failed). */
export function sandboxFailure(request: RolloutRequest, actorId: string, policyVersion: number, reason: TerminationReason, err: unknown, startedAtMs: number): Trajectory {
  const e = err instanceof Error ? err : new Error(String(err));
  return make(TrajectorySchema, {
    trajectoryId: request.trajectoryId,
    request,
    actorId,
    policyVersion: BigInt(Math.max(0, policyVersion)),
    termination: make(TerminationSchema, { class: TerminationClass.SANDBOX_ERROR, reason, message: e.message.slice(0, 2000) }),
    diagnostics: make(DiagnosticsSchema, { errorName: e.name, errorMessage: e.message.slice(0, 2000), errorStack: (e.stack ?? '').slice(0, 4000), wallMs: Date.now() - startedAtMs }),
    startedAtMs: BigInt(startedAtMs),
    finishedAtMs: BigInt(Date.now()),
  });
}

/** What fitPayload did: the encoded size, what it left out (also in `t.trimmed`), and whether it fits now. */
export interface FitResult {
  bytes: number;
  trimmed: string[];
  fits: boolean;
  /** The encoding of `t` as it is now (`bytes` long): what is published, so it is not encoded twice. */
  data: Uint8Array;
}

/** Longest reasoning or raw policy output a step keeps once step text has to be cut. */
const STEP_TEXT_CHARS = 2000;

function cut(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…[cut ${s.length - n} chars]` : s;
}

/**
 * Leaves optional bulk out of `t`, in order, until its encoded size is at most `maxBytes`: the
 * final screenshot (the judge model then sees the page only through the text), the candidate
 * labels of pointer traces (the learner re-derives nothing from them), step reasoning and raw
 * policy output cut to 2 000 characters, action-effect evidence, and the error stack. Every part
 * left out is named in `t.trimmed`, so a reader knows the record is not whole. Never drops a step,
 * a tool call, a trace's features or the termination: when even that does not fit, `fits` is false
 * (the caller then publishes {@link tooLargeFailure} instead).
 */
export function fitPayload(t: Trajectory, maxBytes: number): FitResult {
  const trimmed: string[] = [...t.trimmed];
  // encodeTrajectory: the pointer traces (most of the numbers) written directly, same bytes decoded.
  let data = encodeTrajectory(t);
  const stages: Array<[string, () => boolean]> = [
    [
      'final_screenshot',
      () => {
        if (t.finalScreenshot.length === 0) return false;
        t.finalScreenshot = new Uint8Array();
        return true;
      },
    ],
    [
      'candidate_labels',
      () => {
        let any = false;
        for (const s of t.steps) {
          const tr = s.trace;
          if (tr?.kind.case === 'pointer' && tr.kind.value.candidateLabels.length > 0) {
            // A new trace without them: the policy's (or a pool's sealed one) is left as it is.
            s.trace = make(PolicyTraceSchema, { ...tr, kind: { case: 'pointer', value: { ...tr.kind.value, candidateLabels: [] } } });
            any = true;
          }
        }
        return any;
      },
    ],
    [
      'step_text',
      () => {
        let any = false;
        for (const s of t.steps) {
          if (s.reasoning.length > STEP_TEXT_CHARS || s.rawOutput.length > STEP_TEXT_CHARS) {
            s.reasoning = cut(s.reasoning, STEP_TEXT_CHARS);
            s.rawOutput = cut(s.rawOutput, STEP_TEXT_CHARS);
            any = true;
          }
        }
        return any;
      },
    ],
    [
      'effect_evidence',
      () => {
        let any = false;
        for (const s of t.steps) {
          for (const r of s.results) {
            for (const e of r.effects) {
              if (Object.keys(e.evidence).length > 0) {
                e.evidence = {};
                any = true;
              }
            }
          }
        }
        return any;
      },
    ],
    [
      'blocked_connections',
      () => {
        // the count stays: the list only names them
        if (!t.diagnostics || t.diagnostics.blocked.length === 0) return false;
        t.diagnostics.blocked = [];
        return true;
      },
    ],
    [
      'error_stack',
      () => {
        if (!t.diagnostics || t.diagnostics.errorStack === '') return false;
        t.diagnostics.errorStack = '';
        return true;
      },
    ],
  ];
  for (const [name, drop] of stages) {
    if (data.length <= maxBytes) break;
    if (!drop()) continue;
    if (!trimmed.includes(name)) trimmed.push(name);
    t.trimmed = trimmed;
    data = encodeTrajectory(t);
  }
  return { bytes: data.length, trimmed, fits: data.length <= maxBytes, data };
}

/**
 * The trajectory published in place of one that cannot be trimmed under the payload limit: a
 * SANDBOX_ERROR `trajectory_too_large` naming the sizes (an infrastructure outcome: the learner
 * re-dispatches the rollout, it never becomes a reward).
 */
export function tooLargeFailure(t: Trajectory, bytes: number, maxBytes: number): Trajectory {
  const message = `trajectory ${t.trajectoryId} is ${bytes} bytes after trimming (${t.trimmed.join(', ') || 'nothing to trim'}), over the payload limit of ${maxBytes} bytes; ${t.steps.length} steps left out`;
  return make(TrajectorySchema, {
    trajectoryId: t.trajectoryId,
    ...(t.request ? { request: t.request } : {}),
    actorId: t.actorId,
    policyVersion: t.policyVersion,
    termination: make(TerminationSchema, { class: TerminationClass.SANDBOX_ERROR, reason: 'trajectory_too_large' satisfies TerminationReason, message }),
    diagnostics: make(DiagnosticsSchema, { errorName: 'PayloadTooLarge', errorMessage: message, wallMs: t.diagnostics?.wallMs ?? 0 }),
    startedAtMs: t.startedAtMs,
    finishedAtMs: t.finishedAtMs,
    trimmed: ['steps'],
  });
}

// Converts an episode result of the browser environment into the wire Trajectory, and keeps the
// encoded message under the bus payload limit (the final screenshot and candidate labels go first).
import type { EffectRecord, EpisodeResult, EpisodeStep } from '@owrl/browser-env';
import type { TerminationReason } from '@owrl/core';
import {
  DiagnosticsSchema,
  effectKindFromName,
  EffectSchema,
  encode,
  make,
  PageEvalSchema,
  PointSchema,
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

/** Drops optional bulk (screenshot, then candidate labels) until the encoded size fits. */
export function fitPayload(t: Trajectory, maxBytes: number): { bytes: number; trimmed: string[] } {
  const trimmed: string[] = [];
  let size = encode(TrajectorySchema, t).length;
  if (size > maxBytes && t.finalScreenshot.length > 0) {
    t.finalScreenshot = new Uint8Array();
    trimmed.push('final_screenshot');
    size = encode(TrajectorySchema, t).length;
  }
  if (size > maxBytes) {
    for (const s of t.steps) if (s.trace?.kind.case === 'pointer') s.trace.kind.value.candidateLabels = [];
    trimmed.push('candidate_labels');
    size = encode(TrajectorySchema, t).length;
  }
  return { bytes: size, trimmed };
}

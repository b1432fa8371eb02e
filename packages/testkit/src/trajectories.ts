// Builders of hand-made trajectories and scored trajectories for tests: the fields a test sets,
// the rest as a finished episode has them (completed, done called, id `<run>/0/0/<sample>/0`).
import {
  make,
  AnswerMatchSchema,
  RolloutRequestSchema,
  ScoredTrajectorySchema,
  TaskSchema,
  TerminationClass,
  TerminationSchema,
  TrajectorySchema,
  VerdictSchema,
  VerifierSchema,
  type MessageInitShape,
  type ScoredTrajectory,
  type Step,
  type Trajectory,
  type Verifier,
} from '@owrl/proto';

export interface TrajectoryInit {
  /** Run id of the request; default `run`. */
  runId?: string;
  /** Sample index of the request (unset: 0). */
  sample?: number;
  /** Trajectory id; default `<runId>/0/0/<sample>/0`. */
  id?: string;
  sessionId?: string;
  /** The task of the request (`make(TaskSchema, task)`); none when absent. */
  task?: MessageInitShape<typeof TaskSchema>;
  /** Final answer; default empty. */
  answer?: string;
  /** Whether the policy called done; default true. */
  calledDone?: boolean;
  /** Termination; default COMPLETED, reason `done`. */
  cls?: TerminationClass;
  reason?: string;
  steps?: Step[];
}

/** A trajectory of one rollout request with the given fields. */
export function buildTrajectory(init: TrajectoryInit = {}): Trajectory {
  const runId = init.runId ?? 'run';
  const id = init.id ?? `${runId}/0/0/${init.sample ?? 0}/0`;
  return make(TrajectorySchema, {
    trajectoryId: id,
    request: make(RolloutRequestSchema, {
      runId,
      trajectoryId: id,
      ...(init.sample !== undefined ? { sample: init.sample } : {}),
      ...(init.sessionId !== undefined ? { sessionId: init.sessionId } : {}),
      ...(init.task !== undefined ? { task: make(TaskSchema, init.task) } : {}),
    }),
    finalAnswer: init.answer ?? '',
    calledDone: init.calledDone ?? true,
    termination: make(TerminationSchema, { class: init.cls ?? TerminationClass.COMPLETED, reason: init.reason ?? 'done' }),
    ...(init.steps !== undefined ? { steps: init.steps } : {}),
  });
}

/** An answer verifier accepting `accepted` (normalised unless told otherwise). */
export function answerVerifier(accepted: string | string[], opts: { normalize?: boolean; contains?: boolean } = {}): Verifier {
  return make(VerifierSchema, {
    kind: {
      case: 'answer',
      value: make(AnswerMatchSchema, { accepted: typeof accepted === 'string' ? [accepted] : accepted, normalize: opts.normalize ?? true, ...(opts.contains !== undefined ? { contains: opts.contains } : {}) }),
    },
  });
}

export interface ScoredInit {
  /** Trajectory id; default the trajectory's. */
  id?: string;
  trajectory?: Trajectory;
  /** Reward of a trainable verdict; null or absent: no verdict (excluded). */
  reward?: number | null;
  /** Success of the verdict; default reward > 0.5. */
  success?: boolean;
  /** Trainable; default whether there is a reward. */
  trainable?: boolean;
  excludedReason?: string;
}

/** A scored trajectory: a verdict when `reward` is given, excluded (with its reason) when not. */
export function buildScored(init: ScoredInit): ScoredTrajectory {
  const reward = init.reward ?? null;
  return make(ScoredTrajectorySchema, {
    trajectoryId: init.id ?? init.trajectory?.trajectoryId ?? '',
    trainable: init.trainable ?? reward !== null,
    ...(init.excludedReason !== undefined ? { excludedReason: init.excludedReason } : {}),
    ...(reward !== null ? { verdict: make(VerdictSchema, { reward, success: init.success ?? reward > 0.5 }) } : {}),
    ...(init.trajectory !== undefined ? { trajectory: init.trajectory } : {}),
  });
}

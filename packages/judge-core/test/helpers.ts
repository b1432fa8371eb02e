// Builders of hand-made trajectories for the judge tests.
import {
  make,
  AnswerMatchSchema,
  PageEvalSchema,
  RolloutRequestSchema,
  TaskSchema,
  TerminationSchema,
  TrajectorySchema,
  VerifierSchema,
  TerminationClass,
  type PageEval,
  type Trajectory,
  type Verifier,
} from '@owrl/proto';

export interface TrajInit {
  cls?: TerminationClass;
  reason?: string;
  calledDone?: boolean;
  answer?: string;
  verifier?: Verifier;
  pageEval?: PageEval;
  id?: string;
  sessionId?: string;
  startUrl?: string;
}

export function traj(init: TrajInit = {}): Trajectory {
  const id = init.id ?? 'run1/0/0/0/0';
  const task = make(TaskSchema, {
    id: 'shop/price/0001',
    suite: 'shop',
    startUrl: init.startUrl ?? 'http://127.0.0.1:9/shop',
    instruction: 'find the price',
    ...(init.verifier !== undefined ? { verifier: init.verifier } : {}),
  });
  return make(TrajectorySchema, {
    trajectoryId: id,
    request: make(RolloutRequestSchema, { runId: 'run1', trajectoryId: id, task, sessionId: init.sessionId ?? 'sess-1' }),
    finalAnswer: init.answer ?? '',
    calledDone: init.calledDone ?? true,
    termination: make(TerminationSchema, { class: init.cls ?? TerminationClass.COMPLETED, reason: init.reason ?? 'done' }),
    ...(init.pageEval !== undefined ? { finalPageEval: init.pageEval } : {}),
  });
}

export function answerVerifier(accepted: string[], opts: { normalize?: boolean; contains?: boolean } = {}): Verifier {
  return make(VerifierSchema, {
    kind: { case: 'answer', value: make(AnswerMatchSchema, { accepted, normalize: opts.normalize ?? true, contains: opts.contains ?? false }) },
  });
}

export function pageEval(init: { evaluated: boolean; truthy?: boolean; error?: string; valueJson?: string }): PageEval {
  return make(PageEvalSchema, { evaluated: init.evaluated, truthy: init.truthy ?? false, error: init.error ?? '', valueJson: init.valueJson ?? '' });
}

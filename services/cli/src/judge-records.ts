// Judge records: one JSON line per judged trajectory — the task, the trajectory (proto JSON), the
// verdict, the shadow verdict and a label. `owrl judge export` writes them (a data set fit for
// distilling a new judge) and `owrl judge eval --labels` reads them. Format: docs/judge.md.
import { OwrlError } from '@owrl/core';
import {
  fromJson,
  toJson,
  type JsonValue,
  TrajectorySchema,
  VerdictSource,
  verdictSourceName,
  type ScoredTrajectory,
  type Trajectory,
  type Verdict,
} from '@owrl/proto';

export const JUDGE_RECORD_SCHEMA = 'owrl.judge_record/1';

export interface VerdictRecord {
  success: boolean;
  reward: number;
  source: string;
  judge_version: string;
  p_success: number | null;
  detail: string;
}

export interface JudgeRecord {
  schema: string;
  trajectory_id: string;
  run_id: string;
  task: { id: string; suite: string; family: string; difficulty: number; instruction: string; start_url: string };
  /** Reference label: did the episode succeed? null when unknown. */
  label: boolean | null;
  /** Where the label came from: verifier | format | rule | model | human. */
  label_source: string;
  verdict: VerdictRecord | null;
  shadow: VerdictRecord | null;
  /** Why the trajectory was not trainable ('' when it was). */
  excluded_reason: string;
  /** The whole trajectory as proto JSON (owrl.v1.Trajectory; bytes base64). */
  trajectory: JsonValue;
}

export const JudgeRecordErrorCode = {
  /** A line of a judge-record file is not a labelled record; names the line and the field. */
  Invalid: 'CLI_JUDGE_RECORD_INVALID',
} as const;
export type JudgeRecordErrorCode = (typeof JudgeRecordErrorCode)[keyof typeof JudgeRecordErrorCode];

export class JudgeRecordError extends OwrlError<JudgeRecordErrorCode> {
  override readonly name = 'JudgeRecordError';
  constructor(
    readonly line: number,
    readonly field: string,
    message: string,
  ) {
    super(JudgeRecordErrorCode.Invalid, `line ${line}: ${field}: ${message}`);
  }
}

export function isJudgeRecordError(e: unknown, code?: JudgeRecordErrorCode): e is JudgeRecordError {
  return e instanceof JudgeRecordError && (code === undefined || e.code === code);
}

function verdictRecord(v: Verdict | undefined): VerdictRecord | null {
  if (v === undefined) return null;
  return {
    success: v.success,
    reward: v.reward,
    source: verdictSourceName(v.source),
    judge_version: v.judgeVersion,
    p_success: v.source === VerdictSource.MODEL ? v.pSuccess : null,
    detail: v.detail,
  };
}

/**
 * The record of a scored trajectory. The label is the verdict when a programmatic source decided
 * (verifier, format, rule) — the ground truth a judge is distilled toward; a model verdict is
 * not a label (null), unless `trustModel`.
 */
export function recordFromScored(s: ScoredTrajectory, opts: { trustModel?: boolean } = {}): JudgeRecord {
  const traj = s.trajectory;
  const task = traj?.request?.task;
  const v = s.verdict;
  const programmatic = v !== undefined && v.source !== VerdictSource.MODEL && v.source !== VerdictSource.UNSPECIFIED;
  const labelled = s.trainable && v !== undefined && (programmatic || opts.trustModel === true);
  return {
    schema: JUDGE_RECORD_SCHEMA,
    trajectory_id: s.trajectoryId,
    run_id: traj?.request?.runId ?? '',
    task: {
      id: task?.id ?? '',
      suite: task?.suite ?? '',
      family: task?.family ?? '',
      difficulty: task?.difficulty ?? 0,
      instruction: task?.instruction ?? '',
      start_url: task?.startUrl ?? '',
    },
    label: labelled ? v.success : null,
    label_source: labelled ? verdictSourceName(v.source) : 'none',
    verdict: verdictRecord(v),
    shadow: verdictRecord(s.shadow),
    excluded_reason: s.excludedReason,
    trajectory: traj === undefined ? null : toJson(TrajectorySchema, traj),
  };
}

/**
 * Parses a JSONL file of judge records for evaluation: every non-empty line must carry a boolean
 * `label` and a `trajectory` that decodes as owrl.v1.Trajectory.
 * @throws JudgeRecordError naming the line and the field.
 */
export function parseLabelledRecords(text: string): Array<{ line: number; label: boolean; trajectory: Trajectory; id: string }> {
  const out: Array<{ line: number; label: boolean; trajectory: Trajectory; id: string }> = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let obj: unknown;
    try {
      obj = JSON.parse(raw);
    } catch (e) {
      throw new JudgeRecordError(line, '(line)', `not JSON: ${(e as Error).message}`);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new JudgeRecordError(line, '(line)', 'must be a JSON object');
    const rec = obj as Record<string, unknown>;
    if (typeof rec['label'] !== 'boolean') throw new JudgeRecordError(line, 'label', `must be true or false, got ${JSON.stringify(rec['label'])}`);
    if (typeof rec['trajectory'] !== 'object' || rec['trajectory'] === null) throw new JudgeRecordError(line, 'trajectory', 'must be an owrl.v1.Trajectory JSON object');
    let trajectory: Trajectory;
    try {
      trajectory = fromJson(TrajectorySchema, rec['trajectory'] as JsonValue, { ignoreUnknownFields: false });
    } catch (e) {
      throw new JudgeRecordError(line, 'trajectory', (e as Error).message);
    }
    const id = typeof rec['trajectory_id'] === 'string' ? rec['trajectory_id'] : trajectory.trajectoryId;
    out.push({ line, label: rec['label'], trajectory, id });
  });
  return out;
}

// Checks of one update request (TrainHeader + TrainGroups) and of a trainer's answer, shared by
// the server (before a trainer sees a request) and the client (before sending, and on the
// answer). Every refusal names the field by its path, e.g.
// `groups[2].samples[0].steps[3].trace.tokens.logprobs`. Pure logic.
import { pendingTraceBytes, SCHEMA_VERSION, traceKind, type PointerTrace, type TokenTrace, type TrainGroup, type TrainHeader, type TrainResult, type TrainStep } from '@owrl/proto';
import { TrainerError, TrainerErrorCode } from './errors.js';

function invalid(msg: string): never {
  throw new TrainerError(TrainerErrorCode.InvalidRequest, msg);
}

function checkPointer(t: PointerTrace, where: string): void {
  if (t.numCandidates < 1) invalid(`${where}.num_candidates is 0`);
  if (t.offsets.length !== t.numCandidates + 1) invalid(`${where}.offsets has ${t.offsets.length} entries; num_candidates + 1 = ${t.numCandidates + 1}`);
  for (let i = 1; i < t.offsets.length; i++) if ((t.offsets[i] ?? 0) < (t.offsets[i - 1] ?? 0)) invalid(`${where}.offsets decreases at ${i}`);
  const nnz = t.offsets[t.offsets.length - 1] ?? 0;
  if (t.offsets[0] !== 0 || nnz !== t.featureIndex.length || nnz !== t.featureValue.length) {
    invalid(`${where}: offsets span [${t.offsets[0]}, ${nnz}) but there are ${t.featureIndex.length} feature indices and ${t.featureValue.length} values`);
  }
  if (t.chosen >= t.numCandidates) invalid(`${where}.chosen ${t.chosen} is not a candidate (num_candidates ${t.numCandidates})`);
  if (!Number.isFinite(t.logprob) || t.logprob > 1e-6) invalid(`${where}.logprob ${t.logprob} is not a log-probability`);
}

function checkTokens(t: TokenTrace, where: string): void {
  if (t.incomplete) invalid(`${where} is marked incomplete (the server returned no token ids or log-probs for it): leave such steps out`);
  if (t.tokenIds.length === 0) invalid(`${where}.token_ids is empty`);
  // the trainer recomputes log pi(token | prompt): without the prompt's ids it cannot
  if (t.promptTokenIds.length === 0) invalid(`${where}.prompt_token_ids is empty (ask the server for them: vLLM/SGLang return_token_ids, SGLang return_prompt_token_ids)`);
  if (t.logprobs.length !== t.tokenIds.length) invalid(`${where}.logprobs has ${t.logprobs.length} entries for ${t.tokenIds.length} token_ids`);
  if (t.lossMask.length !== 0 && t.lossMask.length !== t.tokenIds.length) invalid(`${where}.loss_mask has ${t.lossMask.length} entries for ${t.tokenIds.length} token_ids (empty means all 1)`);
  const badMask = t.lossMask.findIndex((m) => m !== 0 && m !== 1);
  if (badMask >= 0) invalid(`${where}.loss_mask[${badMask}] is ${t.lossMask[badMask]}; entries are 0 or 1`);
  const badLp = t.logprobs.findIndex((l) => !Number.isFinite(l) || l > 1e-4);
  if (badLp >= 0) invalid(`${where}.logprobs[${badLp}] is ${t.logprobs[badLp]}, not a log-probability`);
}

export interface ValidateOptions {
  /**
   * A trace still encoded (decodeScoredLazy: pendingTraceBytes) is checked for its kind only,
   * not decoded: the caller checks its contents where it decodes it (validateTrainTraces).
   */
  deferEncodedTraces?: boolean;
}

/**
 * Checks an update request against the trace kinds the trainer accepts.
 * @throws TrainerError TRAINER_INVALID_REQUEST naming the field.
 */
export function validateTrainRequest(header: TrainHeader, groups: readonly TrainGroup[], traceKinds: readonly string[], opts: ValidateOptions = {}): void {
  if (header.schemaVersion !== SCHEMA_VERSION) invalid(`header.schema_version is ${header.schemaVersion}; this build understands major version ${SCHEMA_VERSION}`);
  if (header.batchId === '' || header.batchId.length > 256) invalid(`header.batch_id ${JSON.stringify(header.batchId.slice(0, 40))} must be 1-256 characters`);
  if (header.targetVersion !== header.baseVersion + 1n) invalid(`header.target_version ${header.targetVersion} must be base_version + 1 = ${header.baseVersion + 1n}`);
  if (groups.length === 0) invalid('the update carries no groups');
  if (header.groups !== 0 && header.groups !== groups.length) invalid(`header.groups says ${header.groups}, ${groups.length} groups arrived`);
  const samples = groups.reduce((n, g) => n + g.samples.length, 0);
  if (header.samples !== 0 && header.samples !== samples) invalid(`header.samples says ${header.samples}, ${samples} samples arrived`);
  const h = header.hyper;
  if (h && (h.clipLow < 0 || h.clipHigh < 0 || h.learningRate < 0 || h.temperature < 0 || h.klStop < 0)) invalid('header.hyper has a negative value (clip_low, clip_high, learning_rate, temperature, kl_stop)');
  if (h && h.lossAgg !== '' && h.lossAgg !== 'token_mean' && h.lossAgg !== 'seq_mean') invalid(`header.hyper.loss_agg ${JSON.stringify(h.lossAgg)} must be token_mean or seq_mean`);
  const ids = new Set<string>();
  for (const [gi, g] of groups.entries()) {
    if (g.samples.length === 0) invalid(`groups[${gi}] has no samples`);
    for (const [si, s] of g.samples.entries()) {
      const at = `groups[${gi}].samples[${si}]`;
      if (s.trajectoryId === '') invalid(`${at}.trajectory_id is empty`);
      if (ids.has(s.trajectoryId)) invalid(`${at}.trajectory_id ${s.trajectoryId} appears twice in the update`);
      ids.add(s.trajectoryId);
      if (!Number.isFinite(s.advantage)) invalid(`${at}.advantage is ${s.advantage}`);
      if (!Number.isFinite(s.reward)) invalid(`${at}.reward is ${s.reward}`);
      for (const [ti, st] of s.steps.entries()) checkStep(st, `${at}.steps[${ti}].trace`, traceKinds, opts.deferEncodedTraces === true);
    }
  }
}

function checkStep(st: TrainStep, where: string, traceKinds: readonly string[], defer: boolean): void {
  // A deferred trace is still encoded: its kind is read without decoding it, its contents later.
  const deferred = defer && pendingTraceBytes(st) !== undefined;
  const kind = deferred ? traceKind(st) : st.trace?.kind.case;
  if (kind === undefined) invalid(`${where} is missing`);
  if (!traceKinds.includes(kind)) invalid(`${where} is a ${kind} trace; this trainer takes ${traceKinds.join(', ') || 'none'}`);
  if (deferred) return;
  if (st.trace?.kind.case === 'pointer') checkPointer(st.trace.kind.value, `${where}.pointer`);
  if (st.trace?.kind.case === 'tokens') checkTokens(st.trace.kind.value, `${where}.tokens`);
}

/**
 * Checks every step's trace of `groups` (what validateTrainRequest with deferEncodedTraces left
 * for where the traces are decoded).
 * @throws TrainerError TRAINER_INVALID_REQUEST naming the field.
 */
export function validateTrainTraces(groups: readonly TrainGroup[], traceKinds: readonly string[]): void {
  for (const [gi, g] of groups.entries()) {
    for (const [si, s] of g.samples.entries()) for (const [ti, st] of s.steps.entries()) checkStep(st, `groups[${gi}].samples[${si}].steps[${ti}].trace`, traceKinds, false);
  }
}

/**
 * Checks a trainer's answer to `header`.
 * @throws TrainerError TRAINER_BAD_RESULT naming what does not fit.
 */
export function validateTrainResult(header: TrainHeader, r: TrainResult): void {
  const bad = (msg: string): never => {
    throw new TrainerError(TrainerErrorCode.BadResult, `the trainer's answer to batch ${header.batchId}: ${msg}`);
  };
  if (r.batchId !== header.batchId) bad(`batch_id is ${JSON.stringify(r.batchId)}`);
  if (r.version !== header.targetVersion) bad(`version is ${r.version}, the request asked for ${header.targetVersion}`);
  const a = r.artifact;
  if (!a) return bad('it carries no artifact');
  if (a.version !== r.version) bad(`artifact.version ${a.version} differs from version ${r.version}`);
  if (a.uri === '') bad('artifact.uri is empty');
  if (!/^[0-9a-f]{64}$/.test(a.sha256)) bad(`artifact.sha256 ${JSON.stringify(a.sha256)} is not 64 lowercase hex digits`);
  if (a.kind === '') bad('artifact.kind is empty');
}

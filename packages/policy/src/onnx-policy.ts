// The built-in policy as the actor runs it: candidates and features in TypeScript, scores from the
// ONNX artifact in onnxruntime-node (CPU, one intra-op thread), a seeded sample, and a pointer
// trace with the CSR features, the chosen index and its log-probability under the temperature.
import { mulberry32, type Rng } from '@owrl/core';
import { PointerTraceSchema, PolicyTraceSchema, create } from '@owrl/proto';
import * as ort from 'onnxruntime-node';
import { buildCandidates, type CandidateOptions } from './candidates.js';
import { PolicyError, PolicyErrorCode } from './errors.js';
import { ONNX_INPUTS, ONNX_OUTPUTS, readOnnxWeights } from './onnx-export.js';
import { sampleIndex } from './pointer-model.js';
import { type Policy, type PolicyDecision, type PolicyInput } from './policy.js';
import { toCsr, type Csr } from './sparse.js';

/** Artifact kind of the built-in policy (PolicyArtifact.kind). */
export const POLICY_KIND = 'onnx-pointer';

export interface OnnxPolicyOptions {
  version: number | bigint;
  /** Sampling seed; default: random. */
  seed?: number;
  candidates?: Omit<CandidateOptions, 'dim'>;
}

/** Pads CSR features into dense [C, F] int64 / float32 tensors data (pad index 0, value 0). */
export function padCsr(csr: Csr): { c: number; f: number; index: BigInt64Array; value: Float32Array } {
  const c = csr.offsets.length - 1;
  let f = 1;
  for (let i = 0; i < c; i++) f = Math.max(f, (csr.offsets[i + 1] ?? 0) - (csr.offsets[i] ?? 0));
  const index = new BigInt64Array(c * f);
  const value = new Float32Array(c * f);
  for (let i = 0; i < c; i++) {
    const start = csr.offsets[i] ?? 0;
    const end = csr.offsets[i + 1] ?? 0;
    for (let k = start; k < end; k++) {
      index[i * f + (k - start)] = BigInt(csr.featureIndex[k] ?? 0);
      value[i * f + (k - start)] = csr.featureValue[k] ?? 0;
    }
  }
  return { c, f, index, value };
}

/** Runs an ONNX pointer session on CSR features; returns logits and log-probs (float32). */
export async function runPointerSession(session: ort.InferenceSession, csr: Csr): Promise<{ logits: Float32Array; logProbs: Float32Array }> {
  const { c, f, index, value } = padCsr(csr);
  const out = await session.run({
    [ONNX_INPUTS.featIndex]: new ort.Tensor('int64', index, [c, f]),
    [ONNX_INPUTS.featValue]: new ort.Tensor('float32', value, [c, f]),
  });
  const logits = out[ONNX_OUTPUTS.logits]?.data;
  const logProbs = out[ONNX_OUTPUTS.logProbs]?.data;
  if (!(logits instanceof Float32Array) || !(logProbs instanceof Float32Array)) {
    throw new PolicyError(PolicyErrorCode.InferenceFailed, 'ONNX session returned no float32 logits/log_probs');
  }
  return { logits, logProbs };
}

export async function createPointerSession(bytes: Uint8Array): Promise<ort.InferenceSession> {
  return ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
}

export class OnnxPointerPolicy implements Policy {
  readonly kind = POLICY_KIND;
  readonly needsScreenshot = false;
  private released = false;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly version: bigint,
    readonly dim: number,
    readonly temperature: number,
    private readonly rng: Rng,
    private readonly candidateOptions: CandidateOptions,
  ) {}

  /**
   * Loads an artifact made by exportOnnx.
   * @throws PolicyError POLICY_INVALID_ARTIFACT when the bytes are not a pointer policy or
   *   onnxruntime rejects them.
   */
  static async load(bytes: Uint8Array, opts: OnnxPolicyOptions): Promise<OnnxPointerPolicy> {
    const { dim, temperature } = readOnnxWeights(bytes);
    let session: ort.InferenceSession;
    try {
      session = await createPointerSession(bytes);
    } catch (cause) {
      throw new PolicyError(PolicyErrorCode.InvalidArtifact, `onnxruntime cannot load the policy artifact: ${(cause as Error).message}`, { cause });
    }
    const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
    return new OnnxPointerPolicy(session, BigInt(opts.version), dim, temperature, mulberry32(seed), { ...opts.candidates, dim });
  }

  /**
   * Decides one step. `rng` overrides the policy's own sampler (the actor passes one seeded per
   * rollout, so an episode's samples are reproducible whatever else the process runs).
   */
  async decide(input: PolicyInput, signal?: AbortSignal, rng: Rng = this.rng): Promise<PolicyDecision> {
    if (this.released) throw new PolicyError(PolicyErrorCode.Released, 'policy was released');
    if (signal?.aborted) throw new PolicyError(PolicyErrorCode.Aborted, 'policy step aborted', { cause: signal.reason });
    const candidates = buildCandidates(input, this.candidateOptions);
    const csr = toCsr(candidates.map((c) => c.features));
    let logProbs: Float32Array;
    try {
      ({ logProbs } = await runPointerSession(this.session, csr));
    } catch (cause) {
      if (cause instanceof PolicyError) throw cause;
      throw new PolicyError(PolicyErrorCode.InferenceFailed, `pointer policy inference failed: ${(cause as Error).message}`, { cause });
    }
    if (signal?.aborted) throw new PolicyError(PolicyErrorCode.Aborted, 'policy step aborted', { cause: signal.reason });
    const chosen = sampleIndex(logProbs, rng);
    const picked = candidates[chosen];
    if (!picked) throw new PolicyError(PolicyErrorCode.NoCandidates, 'no candidate actions for this observation');
    const logprob = logProbs[chosen] ?? -Infinity;
    const pointer = create(PointerTraceSchema, {
      numCandidates: candidates.length,
      offsets: Array.from(csr.offsets),
      featureIndex: Array.from(csr.featureIndex),
      featureValue: Array.from(csr.featureValue),
      chosen,
      logprob,
      temperature: this.temperature,
      candidateLabels: candidates.map((c) => c.label),
    });
    return {
      reasoning: `${picked.label} (p=${Math.exp(logprob).toFixed(2)})`,
      calls: picked.calls,
      trace: create(PolicyTraceSchema, { kind: { case: 'pointer', value: pointer } }),
    };
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.session.release();
  }
}

// The update and its publication: the GRPO step on the round's kept groups, then the policy
// artifact (file + sha256) and the KV pointer. The pointer only moves forward: a version at or
// below what KV already holds for this run is never written over it (after a restart the last
// checkpointed version is re-announced only when the pointer lags it).
import { make, PolicyArtifactSchema } from '@owrl/proto';
import type { WeightsPointer } from '@owrl/bus';
import { exportOnnx, POLICY_KIND, type PointerModel } from '@owrl/policy';
import type { GrpoTrainer, GroupLike, UpdateStats } from '@owrl/rl';
import type { Logger } from '@owrl/telemetry';
import type { ArtifactServer } from './artifact-server.js';
import type { CrashPoints } from './crash-point.js';
import { withRetry, type RetryOptions } from './failure-policy.js';
import type { GroupState } from './round-ledger.js';


export class PolicyPublisher {
  constructor(
    private readonly d: {
      runId: string;
      model: PointerModel;
      trainer: GrpoTrainer;
      artifacts: ArtifactServer;
      weights: WeightsPointer;
      crash: CrashPoints;
      logger: Logger;
      retry: RetryOptions;
    },
  ) {}

  /** One GRPO update on the kept groups (fate and advantages already decided by the ledger). */
  update(kept: GroupState[]): UpdateStats {
    const groups: GroupLike[] = kept.map((g) => ({
      rewards: g.rewards,
      trajectories: g.samples.map((s) => ({
        steps: (s.scored?.trajectory?.steps ?? []).flatMap((st) => (st.trace?.kind.case === 'pointer' ? [st.trace.kind.value] : [])),
      })),
    }));
    return this.d.trainer.update(groups);
  }

  /** Writes the artifact of `version` and moves the pointer to it (never backwards). */
  async publish(version: number): Promise<void> {
    const { weights, logger, runId } = this.d;
    const current = await withRetry('read the weights pointer', () => weights.get(), this.d.retry);
    if (current && current.runId === runId && Number(current.version) >= version) {
      logger.info({ policyVersion: version, pointer: Number(current.version) }, 'weights pointer already at or past this version: not moved');
      return;
    }
    const bytes = exportOnnx(this.d.model);
    const art = this.d.artifacts.put(version, bytes);
    this.d.crash.hit('publishing');
    await withRetry(
      'publish the weights pointer',
      () =>
        weights.put(
          make(PolicyArtifactSchema, {
            version: BigInt(version),
            uri: art.uri,
            sha256: art.sha256,
            bytes: BigInt(art.bytes),
            kind: POLICY_KIND,
            runId,
            createdAtMs: BigInt(Date.now()),
            temperature: this.d.model.temperature,
          }),
        ),
      this.d.retry,
    );
    logger.info({ policyVersion: version, uri: art.uri, bytes: art.bytes }, 'policy published');
  }
}

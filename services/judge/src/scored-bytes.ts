// The bytes of a ScoredTrajectory whose trajectory is the one the judge was delivered, unchanged:
// the verdict and the other small fields are encoded, and the trajectory's bytes as delivered are
// embedded as its field (encodeWithField). The trajectory, most of the bytes (~60 KB with 15
// steps), is then not encoded a second time by every judge for every trajectory.
import { encodeWithField, ScoredTrajectorySchema, type ScoredTrajectory } from '@owrl/proto';

/**
 * `scored` encoded with `trajectoryBytes` (a Trajectory's encoding, as delivered) as its
 * trajectory; `scored.trajectory` itself is not encoded (it must be the decoding of those bytes).
 */
export function encodeScoredWith(scored: ScoredTrajectory, trajectoryBytes: Uint8Array): Uint8Array {
  return encodeWithField(ScoredTrajectorySchema, scored, 'trajectory', trajectoryBytes);
}

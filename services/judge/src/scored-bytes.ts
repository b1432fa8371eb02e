// The bytes of a ScoredTrajectory whose trajectory is the one the judge was delivered, unchanged:
// the verdict and the other small fields are encoded, and the trajectory's bytes as delivered are
// appended as its field (protobuf allows fields in any order, and a parser reads this exactly as
// the full encoding). The trajectory, most of the bytes (~60 KB with 15 steps), is then not
// encoded a second time by every judge for every trajectory.
import { encode, make, ScoredTrajectorySchema, type ScoredTrajectory } from '@owrl/proto';

const TRAJECTORY_FIELD = ScoredTrajectorySchema.field.trajectory.number;
/** Wire type 2 (length-delimited). */
const LEN = 2;

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/**
 * `scored` encoded with `trajectoryBytes` (a Trajectory's encoding, as delivered) as its
 * trajectory; `scored.trajectory` itself is not encoded (it must be the decoding of those bytes).
 */
export function encodeScoredWith(scored: ScoredTrajectory, trajectoryBytes: Uint8Array): Uint8Array {
  const head = encode(ScoredTrajectorySchema, make(ScoredTrajectorySchema, { ...scored, trajectory: undefined }));
  const prefix = [...varint((TRAJECTORY_FIELD << 3) | LEN), ...varint(trajectoryBytes.length)];
  const out = new Uint8Array(head.length + prefix.length + trajectoryBytes.length);
  out.set(head, 0);
  out.set(prefix, head.length);
  out.set(trajectoryBytes, head.length + prefix.length);
  return out;
}

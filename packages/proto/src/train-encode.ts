// The encoding of one TrainChunk{group}, with every step trace that is still encoded written from
// its bytes. Encoding an update request with protobuf-es decodes every lazily decoded trace (an
// update's worth at 8000 slots: 3600 results, ≈ 40 000 traces) only to encode it again; written
// ahead before each update, that held the learner's loop for most of 25 s. A trace is an embedded
// message, so its field is its tag and its length-prefixed bytes, whoever encoded them.
import { toBinary } from '@bufbuild/protobuf';
import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { make } from './codec.js';
import { PolicyTraceSchema } from './gen/owrl/v1/trajectory_pb.js';
import { TrainChunkSchema, TrainGroupSchema, TrainSampleSchema, TrainStepSchema, type TrainGroup, type TrainSample } from './gen/owrl/v1/trainer_pb.js';
import { pendingTraceBytes } from './lazy-trace.js';

// Field numbers, read from the schemas (a field the writer does not know fails its tests).
const CHUNK_GROUP = TrainChunkSchema.field.group.number;
const GROUP_TASK_ID = TrainGroupSchema.field.taskId.number;
const GROUP_ROUND = TrainGroupSchema.field.round.number;
const GROUP_GROUP = TrainGroupSchema.field.group.number;
const GROUP_SAMPLES = TrainGroupSchema.field.samples.number;
const SAMPLE_TRAJECTORY_ID = TrainSampleSchema.field.trajectoryId.number;
const SAMPLE_REWARD = TrainSampleSchema.field.reward.number;
const SAMPLE_ADVANTAGE = TrainSampleSchema.field.advantage.number;
const SAMPLE_POLICY_VERSION = TrainSampleSchema.field.policyVersion.number;
const SAMPLE_STEPS = TrainSampleSchema.field.steps.number;
const STEP_INDEX = TrainStepSchema.field.index.number;
const STEP_TRACE = TrainStepSchema.field.trace.number;

const hasUnknown = (m: { $unknown?: unknown[] | undefined }): boolean => (m.$unknown?.length ?? 0) > 0;

/**
 * TrainChunk{group: `g`}, byte for byte protobuf-es's encoding. A trace still encoded (lazily
 * decoded, pendingTraceBytes) is written from its bytes and stays undecoded; any other trace is
 * encoded by protobuf-es. A group, sample or step with unknown fields is encoded whole by
 * protobuf-es.
 */
export function encodeGroupChunk(g: TrainGroup): Uint8Array {
  if (hasUnknown(g) || g.samples.some((s) => hasUnknown(s) || s.steps.some(hasUnknown))) {
    return toBinary(TrainChunkSchema, make(TrainChunkSchema, { kind: { case: 'group', value: g } }));
  }
  const w = new BinaryWriter();
  w.tag(CHUNK_GROUP, WireType.LengthDelimited).fork();
  if (g.taskId !== '') w.tag(GROUP_TASK_ID, WireType.LengthDelimited).string(g.taskId);
  if (g.round !== 0n) w.tag(GROUP_ROUND, WireType.Varint).uint64(g.round);
  if (g.group !== 0) w.tag(GROUP_GROUP, WireType.Varint).uint32(g.group);
  for (const s of g.samples) writeSample(w, s);
  w.join();
  return w.finish();
}

function writeSample(w: BinaryWriter, s: TrainSample): void {
  w.tag(GROUP_SAMPLES, WireType.LengthDelimited).fork();
  if (s.trajectoryId !== '') w.tag(SAMPLE_TRAJECTORY_ID, WireType.LengthDelimited).string(s.trajectoryId);
  if (s.reward !== 0) w.tag(SAMPLE_REWARD, WireType.Bit64).double(s.reward);
  if (s.advantage !== 0) w.tag(SAMPLE_ADVANTAGE, WireType.Bit64).double(s.advantage);
  if (s.policyVersion !== 0n) w.tag(SAMPLE_POLICY_VERSION, WireType.Varint).uint64(s.policyVersion);
  for (const st of s.steps) {
    w.tag(SAMPLE_STEPS, WireType.LengthDelimited).fork();
    if (st.index !== 0) w.tag(STEP_INDEX, WireType.Varint).uint32(st.index);
    const bytes = pendingTraceBytes(st) ?? (st.trace ? toBinary(PolicyTraceSchema, st.trace) : undefined);
    if (bytes) w.tag(STEP_TRACE, WireType.LengthDelimited).bytes(bytes);
    w.join();
  }
  w.join();
}

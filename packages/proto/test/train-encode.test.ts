import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBinary, type DescMessage } from '@bufbuild/protobuf';
import {
  create,
  decodeTrajectoryLazy,
  encode,
  encodeGroupChunk,
  fromBinary,
  make,
  pendingTraceBytes,
  PolicyTraceSchema,
  PointerTraceSchema,
  shareTrace,
  StepSchema,
  TokenTraceSchema,
  TrainChunkSchema,
  TrainGroupSchema,
  TrainSampleSchema,
  TrainStepSchema,
  TrajectorySchema,
  type PolicyTrace,
  type TrainGroup,
} from '../src/index.js';

/** Deterministic generator (high bits of a 64-bit LCG). */
function rng(seed: number): () => number {
  let s = BigInt(seed);
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 33n) / 2 ** 31;
  };
}

function trace(r: () => number): PolicyTrace | undefined {
  const k = r();
  if (k < 0.15) return undefined;
  if (k < 0.3) return create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1, Math.floor(r() * 1000)], logprobs: [-r(), -0], promptTokens: 3 }) } });
  const n = 1 + Math.floor(r() * 4);
  return create(PolicyTraceSchema, {
    kind: {
      case: 'pointer',
      value: create(PointerTraceSchema, {
        numCandidates: n,
        offsets: Array.from({ length: n + 1 }, (_, i) => i),
        featureIndex: Array.from({ length: n }, () => Math.floor(r() * 400_000)),
        featureValue: Array.from({ length: n }, () => r() - 0.5),
        chosen: Math.floor(r() * n),
        logprob: -r() * 3,
        temperature: r() < 0.5 ? 1 : 0.7,
        candidateLabels: Array.from({ length: n }, (_, i) => (r() < 0.2 ? '' : `c${i}✓`)),
      }),
    },
  });
}

/** A group of `samples` with random fields, zeros and edge values included; traces set (decoded). */
function group(r: () => number, samples: number): TrainGroup {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  return make(TrainGroupSchema, {
    taskId: pick(['', 'task-1', 'tâche/ü']),
    round: pick([0n, 1n, 2n ** 40n]),
    group: pick([0, 7, 2 ** 31]),
    samples: Array.from({ length: samples }, (_, i) =>
      create(TrainSampleSchema, {
        trajectoryId: pick(['', `run/0/${i}/0/0`]),
        reward: pick([0, 1, 0.25, Number.NaN]),
        advantage: pick([0, -1.5, 2.75e-9, Number.POSITIVE_INFINITY]),
        policyVersion: pick([0n, 3n, 2n ** 63n - 1n]),
        steps: Array.from({ length: Math.floor(r() * 5) }, (_, j) => {
          const t = trace(r);
          return create(TrainStepSchema, { index: pick([0, j, 300]), ...(t ? { trace: t } : {}) });
        }),
      }),
    ),
  });
}

const protobufEs = (g: TrainGroup): Uint8Array => toBinary(TrainChunkSchema, make(TrainChunkSchema, { kind: { case: 'group', value: g } }));

void test('the chunk of a group is byte for byte what protobuf-es writes (random groups, edge values)', () => {
  const r = rng(41);
  for (let i = 0; i < 300; i++) {
    const g = group(r, Math.floor(r() * 6));
    assert.deepEqual(encodeGroupChunk(g), protobufEs(g), `group ${i}`);
  }
});

void test('a trace still encoded is written from its bytes and stays undecoded', () => {
  const r = rng(7);
  const traces = Array.from({ length: 12 }, () => trace(r) ?? create(PolicyTraceSchema, {}));
  const lazy = decodeTrajectoryLazy(encode(TrajectorySchema, make(TrajectorySchema, { steps: traces.map((t, i) => create(StepSchema, { index: i, trace: t })) })));
  const steps = lazy.steps.map((s) => {
    const st = create(TrainStepSchema, { index: s.index });
    shareTrace(s, st);
    return st;
  });
  assert.ok(steps.every((st) => pendingTraceBytes(st) !== undefined), 'the fixture has undecoded traces');
  const g = make(TrainGroupSchema, { taskId: 't', round: 2n, group: 1, samples: [create(TrainSampleSchema, { trajectoryId: 'x', reward: 1, advantage: 0.5, policyVersion: 1n, steps })] });
  const bytes = encodeGroupChunk(g);
  assert.ok(steps.every((st) => pendingTraceBytes(st) !== undefined), 'encoding decoded a trace');
  const back = fromBinary(TrainChunkSchema, bytes);
  assert.equal(back.kind.case, 'group');
  const got = back.kind.value as TrainGroup;
  assert.deepEqual(
    got.samples[0]!.steps.map((s) => toBinary(PolicyTraceSchema, s.trace!)),
    traces.map((t) => toBinary(PolicyTraceSchema, t)),
  );
  // And once read, the same bytes as protobuf-es's encoding of the decoded group.
  assert.deepEqual(bytes, protobufEs(g));
});

void test('unknown fields anywhere in a group go through protobuf-es and are kept', () => {
  const unknown = [{ no: 99, wireType: 0, data: Uint8Array.of(5) }];
  for (const at of ['group', 'sample', 'step'] as const) {
    const g = group(rng(3), 2);
    const s = g.samples[0]!;
    s.steps.push(create(TrainStepSchema, { index: 1 }));
    const target = at === 'group' ? g : at === 'sample' ? s : s.steps[s.steps.length - 1]!;
    (target as { $unknown?: unknown }).$unknown = unknown;
    const bytes = encodeGroupChunk(g);
    assert.deepEqual(bytes, protobufEs(g), at);
    assert.ok(Buffer.from(bytes).includes(Buffer.from([(99 << 3) >>> 0 & 0x7f | 0x80, 99 >> 4, 5])), `${at}: the unknown field is written`);
  }
});

void test('the writer knows every field of the messages it writes field by field', () => {
  // A field added to one of these would be left out of the stored request: the writer must learn it.
  const written: [DescMessage, string[]][] = [
    [TrainGroupSchema, ['task_id', 'round', 'group', 'samples']],
    [TrainSampleSchema, ['trajectory_id', 'reward', 'advantage', 'policy_version', 'steps']],
    [TrainStepSchema, ['index', 'trace']],
  ];
  for (const [schema, names] of written) assert.deepEqual(schema.fields.map((f) => f.name).sort(), [...names].sort(), `${schema.typeName} gained a field the writer does not know`);
});

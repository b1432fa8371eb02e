import { test } from 'node:test';
import assert from 'node:assert/strict';
import { create, decode, encode, encodeTrajectory, make, PolicyTraceSchema, PointerTraceSchema, StepSchema, TokenTraceSchema, TrajectorySchema, type MessageInitShape, type Trajectory } from '../src/index.js';
import { pointerTraceFieldData } from '../src/trace-encode.js';

function pointer(p: MessageInitShape<typeof PointerTraceSchema>): ReturnType<typeof create<typeof PolicyTraceSchema>> {
  return create(PolicyTraceSchema, { kind: { case: 'pointer', value: create(PointerTraceSchema, p) } });
}

function trajectory(traces: Array<ReturnType<typeof pointer> | undefined>): Trajectory {
  return make(TrajectorySchema, {
    trajectoryId: 'r/0/1/2/1',
    actorId: 'a1',
    policyVersion: 3n,
    finalAnswer: 'order-7',
    steps: traces.map((trace, i) => create(StepSchema, { index: i, reasoning: `step ${i} ✓`, urlBefore: 'http://x/', ...(trace ? { trace } : {}) })),
  });
}

/** encodeTrajectory's bytes decode as encode's (encoded again by protobuf-es: the same bytes, NaN included), with the same length. */
function assertSame(t: Trajectory): void {
  const fast = encodeTrajectory(t);
  const plain = encode(TrajectorySchema, t);
  assert.equal(fast.length, plain.length);
  assert.deepEqual(encode(TrajectorySchema, decode(TrajectorySchema, fast)), plain);
}

void test('encodeTrajectory writes pointer traces that decode exactly as protobuf-es encodes them', () => {
  const rng = ((s) => () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31))(7);
  const big = Array.from({ length: 600 }, () => Math.floor(rng() * 2 ** 32));
  assertSame(
    trajectory([
      pointer({ numCandidates: 3, offsets: [0, 2, 5, 600], featureIndex: big, featureValue: big.map((x) => x / 2 ** 20 - 1000), chosen: 2, logprob: -1.25, temperature: 0.7, candidateLabels: ['a', '', 'héllo ✓', 'x'.repeat(300)] }),
      undefined,
      // Zero values: protobuf-es leaves +0 out and writes -0; empty arrays are left out; the case is written even when empty.
      pointer({ logprob: -0, temperature: 0, offsets: [], featureValue: [0, -0, NaN, Infinity, -Infinity, 3.4028234663852886e38] }),
      pointer({}),
      create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1, 2], logprobs: [-0.5, -1] }) } }),
      create(PolicyTraceSchema, {}),
    ]),
  );
  // Only the trace's place in a step differs: a trajectory without pointer traces is the same bytes.
  const none = trajectory([undefined, create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [4] }) } })]);
  assert.deepEqual(encodeTrajectory(none), encode(TrajectorySchema, none));
});

void test('encodeTrajectory leaves the trajectory as it was and stamps the schema version as encode does', () => {
  const t = trajectory([pointer({ numCandidates: 1, offsets: [0, 1], featureIndex: [9], featureValue: [1], chosen: 0, logprob: -0.1, temperature: 1 })]);
  t.schemaVersion = 0;
  const trace = t.steps[0]!.trace;
  encodeTrajectory(t);
  assert.equal(t.schemaVersion, 1);
  assert.equal(t.steps[0]!.trace, trace);
  assert.equal(t.steps[0]!.$unknown, undefined);
});

void test('a value protobuf-es would refuse goes to protobuf-es, which refuses it as before', () => {
  for (const p of [{ featureIndex: [-1] }, { offsets: [1.5] }, { featureValue: [1e39] }, { chosen: 2 ** 32 }]) {
    assert.equal(pointerTraceFieldData(pointer(p)), undefined, JSON.stringify(p));
    const t = trajectory([pointer(p)]);
    assert.throws(() => encode(TrajectorySchema, t));
    assert.throws(() => encodeTrajectory(t));
  }
  // A trace with unknown fields keeps them: protobuf-es writes it.
  const withUnknown = pointer({ chosen: 1 });
  withUnknown.$unknown = [{ no: 99, wireType: 0, data: new Uint8Array([5]) }];
  assert.equal(pointerTraceFieldData(withUnknown), undefined);
  assertSame(trajectory([withUnknown]));
});

void test('candidate labels of every kind of text are written as protobuf-es writes them (ASCII, 2-4 byte characters, surrogate pairs, lone surrogates)', () => {
  // Lone surrogates become U+FFFD in UTF-8, as TextEncoder writes them.
  const fixed = ['', 'plain', 'é', 'naïve café', '✓ done', '😀', 'a😀b', '\ud800', 'x\udc00y', '\udbff\udfff', '\udc00\ud800', 'end\ud83d'];
  const units = ['a', 'Z', ' ', '\u007f', '\u0080', 'é', '\u07ff', '\u0800', '✓', '\uffff', '😀', '\ud800', '\udfff'];
  let seed = 99;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const random = Array.from({ length: 300 }, () => Array.from({ length: rnd(12) }, () => units[rnd(units.length)]).join(''));
  const labels = [...fixed, ...random];
  assertSame(trajectory([pointer({ numCandidates: labels.length, chosen: 1, logprob: -2, temperature: 1, candidateLabels: labels })]));
  const decoded = decode(TrajectorySchema, encodeTrajectory(trajectory([pointer({ candidateLabels: fixed })])));
  const tr = decoded.steps[0]!.trace!.kind;
  assert.equal(tr.case, 'pointer');
  assert.deepEqual(tr.value.candidateLabels, fixed.map((l) => new TextDecoder().decode(new TextEncoder().encode(l))));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  create,
  decode,
  EffectSchema,
  encode,
  encodeTrajectory,
  ImageRefSchema,
  make,
  PointSchema,
  PolicyTraceSchema,
  PointerTraceSchema,
  sealTrace,
  StepSchema,
  StepTimingSchema,
  TokenTraceSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  type MessageInitShape,
  type Trajectory,
} from '../src/index.js';
import { stepWriterCurrent, writesTraceDirectly } from '../src/trace-encode.js';

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

void test('a sealed trace is frozen and its kept bytes are copied: a trajectory holding it (several times) encodes as protobuf-es encodes it', () => {
  const a = sealTrace(pointer({ numCandidates: 2, offsets: [0, 1, 3], featureIndex: [4, 5, 6], featureValue: [0.5, -1, 2], chosen: 1, logprob: -0.7, temperature: 0.9, candidateLabels: ['a', 'b ✓'] }));
  const tokens = create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1, 2], logprobs: [-0.5, -1] }) } });
  assert.equal(sealTrace(tokens), tokens);
  assert.equal(sealTrace(a), a, 'sealing twice is sealing once');
  assertSame(trajectory([a, undefined, tokens, a, pointer({ chosen: 0, featureIndex: [1], featureValue: [2] }), a]));
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.kind) && Object.isFrozen(a.kind.value) && Object.isFrozen((a.kind.value as { featureValue: number[] }).featureValue));
  // It cannot go stale: every change throws (modules are strict), so its bytes stay its own.
  const p = a.kind.value as { chosen: number; featureValue: number[]; candidateLabels: string[] };
  assert.throws(() => (p.chosen = 0), TypeError);
  assert.throws(() => p.featureValue.push(1), TypeError);
  assert.throws(() => (p.candidateLabels = []), TypeError);
  assertSame(trajectory([a]));
  // Bytes cannot be frozen (unknown fields hold them): refused, naming where they are, and the trace is left unfrozen.
  const withUnknown = pointer({ chosen: 1 });
  withUnknown.$unknown = [{ no: 99, wireType: 2, data: new Uint8Array([1, 5]) }];
  assert.throws(() => sealTrace(withUnknown), { name: 'TypeError', message: /trace\.\$unknown\.0\.data holds bytes/ });
  assert.equal(Object.isFrozen(withUnknown), false);
  assertSame(trajectory([withUnknown]));
});

void test('a value protobuf-es would refuse goes to protobuf-es, which refuses it as before', () => {
  assert.equal(writesTraceDirectly(pointer({ featureIndex: [1], featureValue: [1], chosen: 1 })), true);
  for (const p of [{ featureIndex: [-1] }, { offsets: [1.5] }, { featureValue: [1e39] }, { chosen: 2 ** 32 }]) {
    assert.equal(writesTraceDirectly(pointer(p)), false, JSON.stringify(p));
    const t = trajectory([pointer(p)]);
    assert.throws(() => encode(TrajectorySchema, t));
    assert.throws(() => encodeTrajectory(t));
  }
  // A trace with unknown fields keeps them: protobuf-es writes it.
  const withUnknown = pointer({ chosen: 1 });
  withUnknown.$unknown = [{ no: 99, wireType: 0, data: new Uint8Array([5]) }];
  assert.equal(writesTraceDirectly(withUnknown), false);
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

/** A random step with every field kind of Step and its messages (ToolResult, ToolCall, Effect, Point, StepTiming, ImageRef). */
function randomStep(rnd: (n: number) => number, i: number): ReturnType<typeof create<typeof StepSchema>> {
  const texts = ['', 'click', 'naïve café ✓', '😀 a\ud800b', 'x'.repeat(200), '{"point_2d":[12,30]}'];
  const text = (): string => texts[rnd(texts.length)] as string;
  const doubles = [0, -0, 1.5, -2.25e-7, NaN, Infinity, 123456.789];
  const ints = [0, 1, -1, 127, 128, -129, 2 ** 31 - 1, -(2 ** 31), 16384];
  return create(StepSchema, {
    index: [0, 1, 127, 128, 2 ** 32 - 1][rnd(5)] as number,
    reasoning: text(),
    results: Array.from({ length: rnd(4) }, () =>
      create(ToolResultSchema, {
        ...(rnd(4) > 0 ? { call: create(ToolCallSchema, { name: text(), argsJson: text() }) } : {}),
        ok: rnd(2) === 1,
        effects: Array.from({ length: rnd(3) }, () => create(EffectSchema, { kind: rnd(5), line: text(), evidence: Object.fromEntries(Array.from({ length: rnd(4) }, (_, k) => [k === 0 ? '' : `${text()}${k}`, text()])) })),
        latencyMs: doubles[rnd(doubles.length)] as number,
        errorCode: text(),
        points: Array.from({ length: rnd(3) }, () => create(PointSchema, { x: ints[rnd(ints.length)] as number, y: ints[rnd(ints.length)] as number })),
      }),
    ),
    urlBefore: text(),
    urlAfter: text(),
    ...(rnd(3) > 0 ? { trace: i % 2 === 0 ? pointer({ numCandidates: 2, offsets: [0, 1, 3], featureIndex: [5, 2 ** 20, 7], featureValue: [1, 0.2, -0], chosen: rnd(2), logprob: -0.7, temperature: 1, candidateLabels: [text()] }) : create(PolicyTraceSchema, { kind: { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1, 300], logprobs: [-0.5] }) } }) } : {}),
    ...(rnd(3) > 0 ? { timing: create(StepTimingSchema, { policyMs: doubles[rnd(doubles.length)] as number, actionMs: 2, settleMs: -0, observeMs: 0 }) } : {}),
    rawOutput: text(),
    parseError: rnd(2) === 1,
    ...(rnd(2) > 0 ? { screenshot: create(ImageRefSchema, { sha256: 'ab'.repeat(32), mime: text(), width: rnd(2) * 1280, height: 720, bytes: [0n, 1n, 127n, 128n, 2n ** 53n + 1n, 2n ** 64n - 1n][rnd(6)] as bigint }) } : {}),
  });
}

void test('steps of every field kind are encoded to the same bytes as protobuf-es encodes them, whole trajectories included', () => {
  assert.ok(stepWriterCurrent, 'a message a step is made of has a field the step writer does not write: teach it (trace-encode.ts)');
  let seed = 12345;
  // The high bits of the generator (its low bits cycle with a short period).
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n);
  };
  for (let k = 0; k < 300; k++) {
    const t = make(TrajectorySchema, {
      trajectoryId: `r/0/${k}/0/0@1`,
      actorId: 'a',
      finalAnswer: k % 3 === 0 ? '' : 'answer ✓',
      calledDone: k % 2 === 0,
      trimmed: k % 5 === 0 ? ['labels'] : [],
      finishedAtMs: BigInt(k) * 1000n,
      steps: Array.from({ length: rnd(5) }, (_, i) => randomStep(rnd, i)),
    });
    if (k % 7 === 0) t.$unknown = [{ no: 3, wireType: 0, data: new Uint8Array([5]) }];
    assert.deepEqual(encodeTrajectory(t), encode(TrajectorySchema, t), `trajectory ${k}`);
  }
});

void test('a step with unknown fields anywhere in it, or a value protobuf-es would refuse, goes to protobuf-es', () => {
  const rnd = (): number => 1;
  const step = (): ReturnType<typeof randomStep> => {
    const s = randomStep(rnd, 0);
    s.results = [create(ToolResultSchema, { call: create(ToolCallSchema, { name: 'click' }), effects: [create(EffectSchema, { kind: 1, evidence: { a: 'b' } })], points: [create(PointSchema, { x: -3, y: 4 })] })];
    s.timing = create(StepTimingSchema, { policyMs: 1 });
    s.screenshot = create(ImageRefSchema, { sha256: 'ff', bytes: 9n });
    return s;
  };
  const unknown = [{ no: 99, wireType: 0, data: new Uint8Array([7]) }];
  const places: Array<(s: ReturnType<typeof step>) => void> = [
    (s) => (s.$unknown = unknown),
    (s) => (s.results[0]!.$unknown = unknown),
    (s) => (s.results[0]!.call!.$unknown = unknown),
    (s) => (s.results[0]!.effects[0]!.$unknown = unknown),
    (s) => (s.results[0]!.points[0]!.$unknown = unknown),
    (s) => (s.timing!.$unknown = unknown),
    (s) => (s.screenshot!.$unknown = unknown),
  ];
  for (const [i, place] of places.entries()) {
    const s = step();
    place(s);
    const t = make(TrajectorySchema, { trajectoryId: 'x', steps: [step(), s] });
    assert.deepEqual(encodeTrajectory(t), encode(TrajectorySchema, t), `unknown fields at place ${i}`);
  }
  const refused: Array<(s: ReturnType<typeof step>) => void> = [
    (s) => (s.index = -1),
    (s) => (s.index = 1.5),
    (s) => (s.results[0]!.points[0]!.x = 2 ** 31),
    (s) => (s.results[0]!.effects[0]!.evidence['a'] = 5 as unknown as string),
    (s) => (s.screenshot!.bytes = -1n),
    (s) => (s.reasoning = 7 as unknown as string),
  ];
  // As protobuf-es does: the same bytes, or an error where it errs (it writes a number given for a string as its text).
  const outcome = (f: () => Uint8Array): Uint8Array | 'refused' => {
    try {
      return f();
    } catch {
      return 'refused';
    }
  };
  let refusals = 0;
  for (const [i, spoil] of refused.entries()) {
    const s = step();
    spoil(s);
    const t = make(TrajectorySchema, { trajectoryId: 'x', steps: [s] });
    const plain = outcome(() => encode(TrajectorySchema, t));
    if (plain === 'refused') refusals++;
    assert.deepEqual(outcome(() => encodeTrajectory(t)), plain, `case ${i}`);
  }
  // At least the integers out of range (index -1 and 1.5, x 2^31).
  assert.ok(refusals >= 3, `${refusals} refused`);
});

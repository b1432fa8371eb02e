import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toBinary } from '@bufbuild/protobuf';
import {
  clone,
  create,
  decode,
  decodeScoredLazy,
  decodeTrajectoryLazy,
  encode,
  encodeWithField,
  equals,
  isProtoError,
  make,
  pendingTraceBytes,
  PolicyTraceSchema,
  PointerTraceSchema,
  ScoredTrajectorySchema,
  shareTrace,
  prefetchSteps,
  spillSteps,
  stepCount,
  StepSchema,
  stepTraces,
  traceKind,
  TrainStepSchema,
  TrajectorySchema,
  TokenTraceSchema,
  VerdictSchema,
  type Trajectory,
} from '../src/index.js';

function trajectory(steps = 3): Trajectory {
  return make(TrajectorySchema, {
    trajectoryId: 'r/0/1/2/1',
    actorId: 'a1',
    policyVersion: 7n,
    finalAnswer: 'yes',
    calledDone: true,
    steps: Array.from({ length: steps }, (_, i) =>
      create(StepSchema, {
        index: i,
        reasoning: `step ${i}`,
        urlBefore: 'http://x/',
        urlAfter: 'http://x/y',
        // Step 1 has a token trace, step 2 none at all.
        ...(i === 2
          ? {}
          : {
              trace: create(PolicyTraceSchema, {
                kind:
                  i === 1
                    ? { case: 'tokens', value: create(TokenTraceSchema, { tokenIds: [1, 2, 3], logprobs: [-0.5, -0.25, -1], promptTokens: 4 }) }
                    : {
                        case: 'pointer',
                        value: create(PointerTraceSchema, { numCandidates: 2, offsets: [0, 2, 3], featureIndex: [5, 9, 300000], featureValue: [1, 0.5, 2], chosen: 1, logprob: -0.7, temperature: 1, candidateLabels: ['a', 'b'] }),
                      },
              }),
            }),
      }),
    ),
  });
}

void test('steps stay encoded until read: their count, indexes and trace kinds are read without decoding them', () => {
  const t = trajectory();
  const lazy = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  assert.equal(lazy.trajectoryId, 'r/0/1/2/1');
  assert.equal(lazy.finalAnswer, 'yes');
  assert.equal(stepCount(lazy), 3);
  const held = stepTraces(lazy);
  assert.deepEqual(
    held.map((h) => [h.index, traceKind(h), pendingTraceBytes(h) !== undefined]),
    [
      [0, 'pointer', true],
      [1, 'tokens', true],
      [2, undefined, false],
    ],
  );
  // A holder's trace decodes that trace alone; the trajectory's steps are still encoded.
  assert.deepEqual(held[1]!.trace?.kind.case === 'tokens' ? held[1]!.trace.kind.value.tokenIds : null, [1, 2, 3]);
  assert.notEqual(stepTraces(lazy), lazy.steps, 'still encoded: holders, not the steps');
  assert.equal(lazy.steps.length, 3);
  assert.equal(stepTraces(lazy), lazy.steps, 'decoded: the steps themselves');
  assert.equal(stepCount(lazy), 3);
});

void test('a lazily decoded trajectory equals the full decoding, and a trace is decoded on first read only', () => {
  const t = trajectory();
  const bytes = encode(TrajectorySchema, t);
  const lazy = decodeTrajectoryLazy(bytes);
  const s0 = lazy.steps[0]!;
  assert.ok(pendingTraceBytes(s0), 'the trace is still encoded');
  assert.equal(traceKind(s0), 'pointer');
  assert.equal(traceKind(lazy.steps[1]!), 'tokens');
  assert.equal(traceKind(lazy.steps[2]!), undefined);
  assert.equal(pendingTraceBytes(lazy.steps[2]!), undefined);
  assert.ok(pendingTraceBytes(s0), 'traceKind did not decode it');
  assert.equal(lazy.steps[0]?.reasoning, 'step 0');
  assert.ok(equals(TrajectorySchema, lazy, decode(TrajectorySchema, bytes)));
  assert.equal(pendingTraceBytes(s0), undefined, 'read once, decoded and held');
  assert.deepEqual(s0.trace?.kind.case === 'pointer' ? s0.trace.kind.value.featureIndex : null, [5, 9, 300000]);
  assert.deepEqual(toBinary(TrajectorySchema, decodeTrajectoryLazy(bytes)), toBinary(TrajectorySchema, t));
});

void test('a lazily decoded scored trajectory (as the judge sends it: trajectory bytes embedded) equals the full decoding', () => {
  const t = trajectory(4);
  const scored = make(ScoredTrajectorySchema, { trajectoryId: t.trajectoryId, verdict: create(VerdictSchema, { reward: 1, success: true }), trainable: true });
  const bytes = encodeWithField(ScoredTrajectorySchema, scored, 'trajectory', encode(TrajectorySchema, t));
  const lazy = decodeScoredLazy(bytes);
  assert.equal(lazy.trajectory?.steps.length, 4);
  assert.equal(lazy.verdict?.reward, 1);
  assert.ok(pendingTraceBytes(lazy.trajectory!.steps[3]!));
  // structured clone (postMessage) and clone() read the trace: they see it decoded.
  const copied = structuredClone(decodeScoredLazy(bytes));
  assert.equal(copied.trajectory?.steps[0]?.trace?.kind.case, 'pointer');
  assert.ok(equals(ScoredTrajectorySchema, clone(ScoredTrajectorySchema, lazy), decode(ScoredTrajectorySchema, bytes)));
});

void test('spilled steps leave the trajectory and are read back whole wherever steps are read; a declined spill keeps them', () => {
  const t = trajectory(4);
  const scored = make(ScoredTrajectorySchema, { trajectoryId: t.trajectoryId, verdict: create(VerdictSchema, { reward: 1, success: true }), trainable: true });
  const bytes = encodeWithField(ScoredTrajectorySchema, scored, 'trajectory', encode(TrajectorySchema, t));
  const full = decode(ScoredTrajectorySchema, bytes);
  // A store that copies what it is given and counts its reads.
  const stored: Uint8Array[] = [];
  let reads = 0;
  const write = (chunks: readonly Uint8Array[]) => {
    const copy = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      copy.set(c, at);
      at += c.length;
    }
    stored.push(copy);
    return {
      read: () => {
        reads++;
        return copy.slice();
      },
    };
  };
  const lazy = decodeScoredLazy(bytes);
  const moved = spillSteps(lazy.trajectory!, write);
  assert.equal(moved, stored[0]?.length);
  assert.ok(moved > 0 && moved < bytes.length);
  assert.equal(spillSteps(lazy.trajectory!, write), 0, 'spilled once');
  bytes.fill(0); // the delivered bytes are gone: nothing may still read them
  assert.equal(stepCount(lazy.trajectory!), 4, 'counted without a read');
  assert.equal(reads, 0);
  const holders = stepTraces(lazy.trajectory!);
  assert.equal(reads, 1);
  assert.deepEqual(
    holders.map((h) => [h.index, traceKind(h)]),
    [
      [0, 'pointer'],
      [1, 'tokens'],
      [2, undefined],
      [3, 'pointer'],
    ],
  );
  assert.deepEqual(holders[0]!.trace?.kind.case === 'pointer' ? holders[0]!.trace.kind.value.featureIndex : null, [5, 9, 300000]);
  assert.ok(equals(ScoredTrajectorySchema, lazy, full), 'the steps read back equal the full decoding');
  assert.equal(reads, 2);
  assert.equal(spillSteps(lazy.trajectory!, write), 0, 'decoded steps are not spilled');

  const kept = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  assert.equal(
    spillSteps(kept, () => null),
    0,
  );
  assert.ok(equals(TrajectorySchema, kept, t), 'declined: the steps stayed in memory');

  // A store that hands back other bytes than it was given is named, not decoded as something else.
  const bad = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  spillSteps(bad, () => ({ read: () => new Uint8Array(3) }));
  assert.throws(() => bad.steps, (e: unknown) => isProtoError(e) && /spilled steps read back as 3 bytes/.test((e as Error).message));
});

void test('spilled steps read back ahead into shared buffers serve the next read once; in-memory steps and a store without readInto need none', async () => {
  const t = trajectory(3);
  const counts = { sync: 0, into: 0 };
  let fail = false;
  const write = (chunks: readonly Uint8Array[]) => {
    const copy = Buffer.concat(chunks.map((c) => Buffer.from(c)));
    return {
      read: () => {
        counts.sync++;
        return copy;
      },
      readInto: async (into: Uint8Array) => {
        counts.into++;
        await new Promise((r) => setImmediate(r));
        if (fail) throw new Error('disk gone');
        into.set(copy);
      },
    };
  };
  const lazy = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  assert.ok(spillSteps(lazy, write) > 0);
  const other = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  spillSteps(other, write);
  // Two trajectories into one buffer of 1 MiB.
  await prefetchSteps([lazy, other], 2 ** 20);
  await prefetchSteps([lazy]); // read ahead already: not again
  assert.deepEqual(counts, { sync: 0, into: 2 });
  const traces = stepTraces(lazy);
  assert.deepEqual(traces.map((h) => h.index), [0, 1, 2]);
  const served = traces.map((h) => pendingTraceBytes(h)).find((b) => b !== undefined);
  assert.equal(served?.buffer.byteLength, 2 ** 20, 'the read-ahead bytes, in the shared buffer, served the read');
  assert.equal(stepTraces(other).map((h) => pendingTraceBytes(h)).find((b) => b !== undefined)?.buffer, served?.buffer, 'both read into one buffer');
  assert.deepEqual(counts, { sync: 0, into: 2 });
  stepTraces(lazy);
  assert.deepEqual(counts, { sync: 1, into: 2 }, 'once: the next read goes to the store again');
  assert.ok(equals(TrajectorySchema, lazy, t));

  // A store that cannot read them back: every read is awaited, then the failure is passed on; the next read goes to the store.
  const bad = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  spillSteps(bad, write);
  fail = true;
  await assert.rejects(prefetchSteps([bad]), /disk gone/);
  assert.ok(equals(TrajectorySchema, bad, t));

  // Nothing to read ahead: in memory, or a store that reads synchronously only.
  const inMemory = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  const syncOnly = decodeTrajectoryLazy(encode(TrajectorySchema, t));
  spillSteps(syncOnly, (chunks) => {
    const copy = Buffer.concat(chunks.map((c) => Buffer.from(c)));
    return { read: () => copy };
  });
  counts.into = 0;
  await prefetchSteps([inMemory, syncOnly]);
  assert.equal(counts.into, 0);
  assert.ok(equals(TrajectorySchema, inMemory, t));
  assert.ok(equals(TrajectorySchema, syncOnly, t));
});

void test('shareTrace hands an encoded trace on still encoded; a written trace replaces it', () => {
  const lazy = decodeTrajectoryLazy(encode(TrajectorySchema, trajectory()));
  const s0 = lazy.steps[0]!;
  const target = create(TrainStepSchema, { index: 0 });
  shareTrace(s0, target);
  assert.ok(pendingTraceBytes(target));
  assert.ok(pendingTraceBytes(s0));
  assert.equal(target.trace?.kind.case, 'pointer');
  assert.equal(pendingTraceBytes(target), undefined);
  s0.trace = undefined;
  assert.equal(s0.trace, undefined);
  assert.equal(pendingTraceBytes(s0), undefined);
});

void test('a malformed trace is reported as undecodable when the message is decoded, not later', () => {
  const t = trajectory(1);
  const bytes = encode(TrajectorySchema, t);
  // Truncate the pointer trace's packed feature_value: make its declared length overrun.
  const traceBytes = toBinary(PolicyTraceSchema, t.steps[0]!.trace!);
  const at = Buffer.from(bytes).indexOf(Buffer.from(traceBytes));
  assert.ok(at > 0);
  const bad = Uint8Array.from(bytes);
  // The trace's first byte is the tag of `pointer` (field 1, LD), then its length: make it longer than the trace.
  assert.equal(bad[at], 0x0a);
  bad[at + 1] = (bad[at + 1] ?? 0) + 1;
  assert.throws(
    () => decodeTrajectoryLazy(bad),
    (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNDECODABLE',
  );
});

void test('a trace string that is not UTF-8 is rejected at decode time, as the full decode rejects it', () => {
  const t = trajectory(1);
  const tr = t.steps[0]!.trace!.kind;
  if (tr.case === 'pointer') tr.value.candidateLabels = ['label-\u00e9zz', 'b'];
  const bad = Uint8Array.from(encode(TrajectorySchema, t));
  const at = Buffer.from(bad).indexOf(Buffer.from('label-\u00e9zz'));
  assert.ok(at > 0);
  bad[at + 6] = 0xff;
  const undecodable = (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNDECODABLE';
  assert.throws(() => decode(TrajectorySchema, bad), undecodable);
  assert.throws(() => decodeTrajectoryLazy(bad), undecodable);
});

void test('a malformed step (not its trace) is reported as undecodable at decode time too', () => {
  const t = trajectory(1);
  t.steps[0]!.reasoning = 'reasoning-\u00e9';
  const bad = Uint8Array.from(encode(TrajectorySchema, t));
  const at = Buffer.from(bad).indexOf(Buffer.from('reasoning-\u00e9'));
  bad[at + 10] = 0xc0;
  const undecodable = (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNDECODABLE';
  assert.throws(() => decode(TrajectorySchema, bad), undecodable);
  assert.throws(() => decodeTrajectoryLazy(bad), undecodable);
});

void test('bytes that are no trajectory fail as decode fails; an unknown schema version is rejected', () => {
  assert.throws(
    () => decodeScoredLazy(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])),
    (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNDECODABLE',
  );
  const t = trajectory(1);
  t.schemaVersion = 2;
  assert.throws(
    () => decodeTrajectoryLazy(toBinary(TrajectorySchema, t)),
    (e: unknown) => isProtoError(e) && e.code === 'PROTO_UNSUPPORTED_SCHEMA_VERSION',
  );
});

void test('steps stay views of the delivered bytes when their buffer is about the message, and are copied out of a much larger one', () => {
  const bytes = encode(TrajectorySchema, trajectory());
  // As a socket read holds it: a little more than the message.
  const frame = new Uint8Array(bytes.length + 64);
  frame.set(bytes, 32);
  const inFrame = frame.subarray(32, 32 + bytes.length);
  const shared = decodeTrajectoryLazy(inFrame);
  assert.equal(pendingTraceBytes(stepTraces(shared)[0]!)?.buffer, frame.buffer, 'a view: no copy of the step bytes');
  // A small message in a large buffer: a view would pin all of it.
  const big = new Uint8Array(bytes.length * 3);
  big.set(bytes, 0);
  const copied = decodeTrajectoryLazy(big.subarray(0, bytes.length));
  const traceBytes = pendingTraceBytes(stepTraces(copied)[0]!);
  assert.ok(traceBytes && traceBytes.buffer !== big.buffer, 'copied out of the large buffer');
  big.fill(0);
  // Both decode as the full decoding (the copy no longer depends on the zeroed buffer).
  assert.ok(equals(TrajectorySchema, copied, decode(TrajectorySchema, bytes)));
  assert.ok(equals(TrajectorySchema, shared, decode(TrajectorySchema, bytes)));
});

void test('strings of every kind are accepted or rejected by the lazy decode exactly as by the full decode (short strings checked in place, long ones by Node)', () => {
  // A seeded mix of ASCII, valid multi-byte characters and the invalid sequences a UTF-8
  // validator must refuse (stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF,
  // truncated sequences), at lengths on both sides of the in-place limit (256 bytes).
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pieces = [[0x61], [0x7f], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0x80], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5], [0xff], [0xc3], [0xe2, 0x82]];
  let accepted = 0;
  let rejected = 0;
  for (let n = 0; n < 400; n++) {
    const valid = n % 2 === 0;
    const bytes: number[] = [];
    const target = [3, 40, 255, 256, 257, 600][n % 6] as number;
    while (bytes.length < target) {
      const p = pieces[valid ? rnd(5) : rnd(100) < 90 ? rnd(5) : 5 + rnd(pieces.length - 5)] as number[];
      if (bytes.length + p.length > target) break;
      bytes.push(...p);
    }
    while (bytes.length < target) bytes.push(0x62);
    const t = trajectory(1);
    t.steps[0]!.reasoning = 'x'.repeat(target);
    const buf = Uint8Array.from(encode(TrajectorySchema, t));
    const at = Buffer.from(buf).indexOf(Buffer.from('x'.repeat(target)));
    assert.ok(at > 0);
    buf.set(bytes, at);
    let full: boolean;
    try {
      decode(TrajectorySchema, buf);
      full = true;
    } catch (e) {
      assert.ok(isProtoError(e));
      full = false;
    }
    let lazy: boolean;
    try {
      decodeTrajectoryLazy(buf);
      lazy = true;
    } catch (e) {
      assert.ok(isProtoError(e) && e.code === 'PROTO_UNDECODABLE');
      lazy = false;
    }
    assert.equal(lazy, full, `string of ${target} bytes ${Buffer.from(bytes).toString('hex').slice(0, 80)}…`);
    if (full) accepted++;
    else rejected++;
  }
  assert.ok(accepted > 100 && rejected > 50, `both kinds seen: ${accepted} accepted, ${rejected} rejected`);
});

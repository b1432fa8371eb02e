// Decoding of trajectories with their steps, and each step's policy trace, left as bytes until
// first read. The steps are most of a trajectory (~60 KB with 15 pointer steps: every
// candidate's hashed features as packed arrays, tool calls with effects and evidence), and a
// service that does not read them pays for materialising them anyway: the judge's verifiers read
// none of it, the learner at ingestion only the trajectory's own fields, at its update the kept
// samples' traces, which its update thread decodes itself. `decodeTrajectoryLazy` /
// `decodeScoredLazy` decode everything else as `decode` does (schema version checked) and give
// the trajectory a `steps` property that decodes the steps on first read (each with a `trace`
// that decodes on its own first read); a property read once holds the decoded value like any
// field, so every reader, protobuf-es reflection (toBinary, clone, equals) and structured clone
// included, sees the same message as after a full decode. `stepCount`, `stepTraces` and
// `pendingTraceBytes` serve code that would rather not decode (the learner's batch for its update
// thread). The step bytes are checked at decode time as fromBinary would reject them (wire format
// of every sub-message, UTF-8 of every string) without building anything, so a truncated or
// garbled step is still reported as undecodable when the message is delivered, not later.
import { isUtf8 } from 'node:buffer';
import { fromBinary, ScalarType, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { OwrlError } from '@owrl/core';
import { decode, lengthDelimitedHeader } from './codec.js';
import { ProtoError, ProtoErrorCode } from './errors.js';
import { PolicyTraceSchema, StepSchema, TrajectorySchema, type PolicyTrace, type Step, type Trajectory } from './gen/owrl/v1/trajectory_pb.js';
import { ScoredTrajectorySchema } from './gen/owrl/v1/scored_pb.js';

/** Field numbers on the path to the traces (proto/owrl/v1/trajectory.proto, scored.proto). */
const SCORED_TRAJECTORY = 3;
const TRAJECTORY_STEPS = 6;
const STEP_TRACE = 6;
const STEP_INDEX = 1;

/** Bytes of the traces not decoded yet, by the step object holding them. */
const pending = new WeakMap<object, Uint8Array>();
/** The steps of a trajectory not decoded yet: their bytes in memory, or spilled (spillSteps). */
interface PendingSteps {
  readonly count: number;
  readonly spilled: boolean;
  /** Each step's bytes (read back first when spilled). */
  views(): Uint8Array[];
  /** Spilled to a store that reads without blocking: their bytes, and the read for the next views() (prefetchSteps). */
  readonly ahead?: { readonly bytes: number; readonly loaded: boolean; read(into: Uint8Array): Promise<void> };
}
/** Steps not decoded yet, by the trajectory holding them. */
const pendingSteps = new WeakMap<Trajectory, PendingSteps>();

function inMemory(views: Uint8Array[]): PendingSteps {
  return { count: views.length, spilled: false, views: () => views };
}

/**
 * A fault of the wire format met while splitting out the steps. It never leaves this module: the
 * callers turn it into a ProtoError UNDECODABLE naming the message type, or let the full decode decide.
 */
const WireErrorCode = {
  Malformed: 'PROTO_WIRE_MALFORMED',
} as const;
type WireErrorCode = (typeof WireErrorCode)[keyof typeof WireErrorCode];

class WireError extends OwrlError<WireErrorCode> {
  override readonly name = 'WireError';
  constructor(message: string) {
    super(WireErrorCode.Malformed, message);
  }
}

function isWireError(e: unknown, code?: WireErrorCode): e is WireError {
  return e instanceof WireError && (code === undefined || e.code === code);
}

/** Where the last varint() read ended (its second result, without an array per call). */
let varintEnd = 0;

function varint(b: Uint8Array, pos: number, end: number): number {
  let v = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw new WireError('truncated varint');
    const x = b[pos++] as number;
    v += (x & 0x7f) * mul;
    if ((x & 0x80) === 0) {
      varintEnd = pos;
      return v;
    }
    mul *= 128;
  }
  throw new WireError('varint too long');
}

/**
 * The field nextField() read last: its number, wire type, value (a varint) or bytes
 * b[fStart, fStop) (length-delimited), and where its tag began. Module state rather than an
 * object per field: check() reads every field of every step, and its garbage was a large part of
 * what the judge and the learner allocate per trajectory (each allocation brings the next
 * scavenge nearer, and a scavenge that finds a delivery's payload still in flight promotes it).
 */
let fNo = 0;
let fWt = 0;
let fValue = 0;
let fStart = 0;
let fStop = 0;
let fTagStart = 0;

/** Reads the field at b[pos] (pos < end) into the f* variables; returns where the next begins. Throws WireError. */
function nextField(b: Uint8Array, pos: number, end: number): number {
  fTagStart = pos;
  const tag = varint(b, pos, end);
  pos = varintEnd;
  const no = Math.floor(tag / 8);
  if (no < 1) throw new WireError(`field number ${no}`);
  fNo = no;
  fWt = tag & 7;
  switch (fWt) {
    case 0:
      fValue = varint(b, pos, end);
      pos = varintEnd;
      break;
    case 1:
      pos += 8;
      break;
    case 5:
      pos += 4;
      break;
    case 2: {
      const len = varint(b, pos, end);
      const q = varintEnd;
      if (q + len > end) throw new WireError('length past the end');
      fStart = q;
      fStop = q + len;
      pos = fStop;
      break;
    }
    default:
      throw new WireError(`wire type ${fWt}`);
  }
  if (pos > end) throw new WireError('field past the end');
  return pos;
}

/** Calls `field(no, start, end)` for every length-delimited field of b[pos, end); checks the rest. Returns nothing; throws WireError. */
function walk(
  b: Uint8Array,
  pos: number,
  end: number,
  field: ((no: number, start: number, stop: number, tagStart: number) => void) | null,
  onVarint?: (no: number, value: number) => void,
): void {
  while (pos < end) {
    pos = nextField(b, pos, end);
    // The field's values go as arguments: a callback that walks again reads fields of its own.
    if (fWt === 2) field?.(fNo, fStart, fStop, fTagStart);
    else if (fWt === 0) onVarint?.(fNo, fValue);
  }
}

/** Per message type: its length-delimited fields that `check` looks into (sub-messages and strings). */
const checkedFields = new Map<string, Map<number, DescMessage | 'string'>>();

function fieldsToCheck(desc: DescMessage): Map<number, DescMessage | 'string'> {
  let m = checkedFields.get(desc.typeName);
  if (m) return m;
  m = new Map();
  for (const f of desc.fields) {
    if (f.fieldKind === 'message' || (f.fieldKind === 'list' && f.listKind === 'message')) m.set(f.number, f.message as DescMessage);
    else if ((f.fieldKind === 'scalar' || (f.fieldKind === 'list' && f.listKind === 'scalar')) && f.scalar === ScalarType.STRING) m.set(f.number, 'string');
  }
  checkedFields.set(desc.typeName, m);
  return m;
}

/** Strings longer than this are checked by Node's UTF-8 validator on a view; shorter ones in place. */
const SHORT_STRING = 256;

/** Whether b[s, e) is UTF-8 (as fromBinary's decoder requires), without a view for an ASCII string up to SHORT_STRING bytes. */
function utf8(b: Uint8Array, s: number, e: number): boolean {
  if (e - s > SHORT_STRING) return isUtf8(b.subarray(s, e));
  for (let i = s; i < e; i++) if ((b[i] as number) >= 0x80) return isUtf8(b.subarray(i, e));
  return true;
}

/**
 * Checks b[start, end) as a `desc` message the way fromBinary would reject it, without building
 * it: the wire format (tags, lengths, wire types) of the message and of every sub-message, and
 * UTF-8 in every string field. Throws WireError.
 */
function check(desc: DescMessage, b: Uint8Array, start: number, end: number, depth = 0): void {
  if (depth > 32) throw new WireError('nested too deep');
  const fields = fieldsToCheck(desc);
  let pos = start;
  while (pos < end) {
    pos = nextField(b, pos, end);
    if (fWt !== 2) continue;
    const f = fields.get(fNo);
    if (f === undefined) continue;
    if (f === 'string') {
      if (!utf8(b, fStart, fStop)) throw new WireError(`field ${fNo} of ${desc.typeName} is not UTF-8`);
    } else {
      check(f, b, fStart, fStop, depth + 1);
    }
  }
}

interface Parts {
  chunks: Uint8Array[];
  length: number;
}

function push(p: Parts, c: Uint8Array): void {
  if (c.length === 0) return;
  p.chunks.push(c);
  p.length += c.length;
}

/** b[start, end) without its field `no` (every occurrence); the bytes of each are appended to `into`. */
function stripField(b: Uint8Array, start: number, end: number, no: number, into: Uint8Array[]): Parts {
  const out: Parts = { chunks: [], length: 0 };
  let from = start;
  walk(b, start, end, (n, s, e, tagStart) => {
    if (n !== no) return;
    push(out, b.subarray(from, tagStart));
    into.push(b.subarray(s, e));
    from = e;
  });
  push(out, b.subarray(from, end));
  return out;
}

/** b[start, end) as a Step without its trace field(s); the traces' bytes are appended to `traces`. */
function stripStep(b: Uint8Array, start: number, end: number, traces: Uint8Array[][]): Parts {
  const mine: Uint8Array[] = [];
  const out = stripField(b, start, end, STEP_TRACE, mine);
  traces.push(mine);
  return out;
}

/** b[start, end) as a Trajectory without its steps; each step's bytes are appended to `steps`. */
function stripTrajectory(b: Uint8Array, start: number, end: number, steps: Uint8Array[]): Parts {
  return stripField(b, start, end, TRAJECTORY_STEPS, steps);
}

/** b as a ScoredTrajectory whose trajectory has no steps; the steps' bytes are appended to `steps`. */
function stripScored(b: Uint8Array, steps: Uint8Array[]): Parts {
  const out: Parts = { chunks: [], length: 0 };
  let from = 0;
  let seen = false;
  walk(b, 0, b.length, (no, s, e, tagStart) => {
    if (no !== SCORED_TRAJECTORY) return;
    // Protobuf merges a message field that occurs twice; not what any producer writes, and the
    // step order of a merge is not this module's to reproduce: such a message is decoded whole.
    if (seen) throw new WireError('trajectory field occurs twice');
    seen = true;
    push(out, b.subarray(from, tagStart));
    const t = stripTrajectory(b, s, e, steps);
    push(out, lengthDelimitedHeader(SCORED_TRAJECTORY, t.length));
    for (const c of t.chunks) push(out, c);
    from = e;
  });
  push(out, b.subarray(from, b.length));
  return out;
}

function join(p: Parts): Uint8Array {
  const out = new Uint8Array(p.length);
  let at = 0;
  for (const c of p.chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Gives `step` a `trace` that decodes `bytes` on first read (a view of the step's bytes: see
 * attachSteps for when those are the delivered message's).
 */
function attach(step: { trace?: PolicyTrace | undefined }, bytes: Uint8Array): void {
  pending.set(step, bytes);
  const settle = (v: PolicyTrace | undefined): void => {
    pending.delete(step);
    Object.defineProperty(step, 'trace', { value: v, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(step, 'trace', {
    enumerable: true,
    configurable: true,
    get(): PolicyTrace {
      let v: PolicyTrace;
      try {
        v = fromBinary(PolicyTraceSchema, bytes);
      } catch (cause) {
        throw new ProtoError(ProtoErrorCode.Undecodable, PolicyTraceSchema.typeName, `cannot decode the ${bytes.length} bytes of a step's trace: ${(cause as Error).message}`, { cause });
      }
      settle(v);
      return v;
    },
    set(v: PolicyTrace | undefined): void {
      settle(v);
    },
  });
}

/** A step decoded from its bytes (see attachSteps), its trace left encoded. */
function decodeStep(view: Uint8Array): Step {
  const traces: Uint8Array[][] = [];
  let step: Step;
  try {
    step = fromBinary(StepSchema, join(stripStep(view, 0, view.length, traces)));
  } catch (cause) {
    throw new ProtoError(ProtoErrorCode.Undecodable, StepSchema.typeName, `cannot decode the ${view.length} bytes of a step: ${(cause as Error).message}`, { cause });
  }
  const mine = traces[0] ?? [];
  if (mine.length === 1) attach(step, mine[0] as Uint8Array);
  // A trace field that occurs twice is merged, as decoding its pieces one after the other does.
  else if (mine.length > 1) attach(step, join({ chunks: mine, length: mine.reduce((n, c) => n + c.length, 0) }));
  return step;
}

/**
 * Gives `traj` a `steps` that decodes the steps' bytes on first read (each step's trace still
 * left for its own first read), after checking them as fromBinary would check them. The steps
 * stay views of the delivered bytes when the buffer under those is at most twice the message (a
 * socket read, or the NATS client's buffer of a message that spanned reads: the message is then
 * most of it, and its delivery holds the same buffer until it is acked anyway); else (a small
 * message in a larger buffer) they are copied into one buffer of the trajectory's own, so that a
 * held result never pins much more than itself.
 */
function attachSteps(traj: Trajectory, found: Uint8Array[], delivered: Uint8Array): void {
  const views: Uint8Array[] = [];
  if (delivered.buffer.byteLength <= 2 * delivered.byteLength) {
    for (const v of found) {
      check(StepSchema, v, 0, v.length);
      views.push(v);
    }
  } else {
    const store = join({ chunks: found, length: found.reduce((n, c) => n + c.length, 0) });
    let at = 0;
    for (const c of found) {
      const v = store.subarray(at, at + c.length);
      at += c.length;
      check(StepSchema, v, 0, v.length);
      views.push(v);
    }
  }
  pendingSteps.set(traj, inMemory(views));
  const settle = (v: Step[]): void => {
    pendingSteps.delete(traj);
    Object.defineProperty(traj, 'steps', { value: v, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(traj, 'steps', {
    enumerable: true,
    configurable: true,
    get(): Step[] {
      const v = (pendingSteps.get(traj)?.views() ?? []).map(decodeStep);
      settle(v);
      return v;
    },
    set(v: Step[]): void {
      settle(v);
    },
  });
}

function lazily<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array, strip: (b: Uint8Array, steps: Uint8Array[]) => Parts, trajectory: (m: MessageShape<Desc>) => Trajectory | undefined): MessageShape<Desc> {
  const steps: Uint8Array[] = [];
  let stripped: Uint8Array;
  try {
    stripped = join(strip(bytes, steps));
  } catch (e) {
    if (!isWireError(e)) throw e;
    // Not the shape this module splits (or not protobuf at all): the full decode decides.
    return decode(schema, bytes);
  }
  const msg = decode(schema, stripped);
  const traj = trajectory(msg);
  if (traj && steps.length > 0) {
    try {
      attachSteps(traj, steps, bytes);
    } catch (e) {
      if (!isWireError(e)) throw e;
      throw new ProtoError(ProtoErrorCode.Undecodable, schema.typeName, `cannot decode ${bytes.length} bytes as ${schema.typeName}: a step is malformed (${e.message})`, { cause: e });
    }
  }
  return msg;
}

/**
 * Decodes a Trajectory as `decode` does, its steps decoded on first read and each step's trace on
 * its first read.
 * @throws ProtoError as `decode` (a malformed step or trace included).
 */
export function decodeTrajectoryLazy(bytes: Uint8Array): MessageShape<typeof TrajectorySchema> {
  return lazily(TrajectorySchema, bytes, (b, steps) => stripTrajectory(b, 0, b.length, steps), (m) => m);
}

/**
 * Decodes a ScoredTrajectory as `decode` does, its trajectory's steps decoded on first read and
 * each step's trace on its first read.
 * @throws ProtoError as `decode` (a malformed step or trace included).
 */
export function decodeScoredLazy(bytes: Uint8Array): MessageShape<typeof ScoredTrajectorySchema> {
  return lazily(ScoredTrajectorySchema, bytes, stripScored, (m) => m.trajectory);
}

/**
 * The encoded steps of the trajectory in a ScoredTrajectory's bytes, one view of `bytes` per
 * step, in order: the bytes decodeScoredLazy would hold for them, found without decoding
 * anything else (a learner reading a held result's steps back from the stream).
 * @throws ProtoError UNDECODABLE when `bytes` are not a ScoredTrajectory this module can split.
 */
export function scoredStepBytes(bytes: Uint8Array): Uint8Array[] {
  const steps: Uint8Array[] = [];
  try {
    stripScored(bytes, steps);
  } catch (e) {
    if (!isWireError(e)) throw e;
    throw new ProtoError(ProtoErrorCode.Undecodable, ScoredTrajectorySchema.typeName, `cannot find the steps in ${bytes.length} bytes of ${ScoredTrajectorySchema.typeName}: ${e.message}`, { cause: e });
  }
  return steps;
}

/** Number of steps of `traj`, without decoding them when they are still encoded. */
export function stepCount(traj: Trajectory): number {
  return pendingSteps.get(traj)?.count ?? traj.steps.length;
}

/**
 * Stores the bytes of a trajectory's steps elsewhere (`chunks`, one per step, in order) and returns
 * how to read them back (all of them, concatenated), or null to keep them in memory (e.g. the
 * store failed).
 */
export type StepSpillWriter = (chunks: readonly Uint8Array[]) => SpillReader | null;

/** How spilled steps are read back: at once, or (when the store can) without blocking the caller's thread, into `into` (exactly their size). */
export interface SpillReader {
  read(): Uint8Array;
  readInto?(into: Uint8Array): Promise<void>;
}

/**
 * Moves the steps of `traj` that are still encoded (decodeTrajectoryLazy / decodeScoredLazy) out
 * of memory through `write`: the trajectory then holds no step bytes, and reading its steps or
 * stepTraces() reads them back through what `write` returned (each time, until the steps are
 * decoded: a decoded `steps` stays in memory like any field). Returns the bytes moved: 0 when the
 * steps are decoded already, spilled already, or `write` declined.
 */
export function spillSteps(traj: Trajectory, write: StepSpillWriter): number {
  const p = pendingSteps.get(traj);
  if (!p || p.spilled) return 0;
  const views = p.views();
  const reader = write(views);
  if (!reader) return 0;
  const lengths = views.map((v) => v.length);
  const total = lengths.reduce((a, b) => a + b, 0);
  const split = (all: Uint8Array): Uint8Array[] => {
    if (all.length !== total) throw new ProtoError(ProtoErrorCode.Undecodable, StepSchema.typeName, `spilled steps read back as ${all.length} bytes, ${total} were written`);
    let at = 0;
    return lengths.map((n) => all.subarray(at, (at += n)));
  };
  /** Read ahead (prefetchSteps), for the next views() only (then the steps are on disk alone again). */
  let readAhead: Uint8Array | null = null;
  const readInto = reader.readInto?.bind(reader);
  pendingSteps.set(traj, {
    count: views.length,
    spilled: true,
    views: () => {
      const all = readAhead ?? reader.read();
      readAhead = null;
      return split(all);
    },
    ...(readInto
      ? {
          ahead: {
            bytes: total,
            get loaded() {
              return readAhead !== null;
            },
            read: async (into: Uint8Array) => {
              if (into.length !== total) throw new RangeError(`${into.length} bytes given to read back ${total}`);
              await readInto(into);
              readAhead = into;
            },
          },
        }
      : {}),
  });
  return total;
}

/** Bytes of one buffer prefetchSteps reads into by default. */
const PREFETCH_SLAB_BYTES = 16 * 2 ** 20;

/**
 * Reads the spilled steps (spillSteps) of `trajectories` back without blocking this thread, each
 * for its next read (stepTraces, steps): a reader of many trajectories (the learner building an
 * update) waits for the disk without stopping everything else. They are read into shared buffers
 * of `slabBytes` (a larger trajectory gets its own), not one allocation each; a buffer lives as
 * long as a step read into it is held. Steps in memory, or in a store without readInto, are left
 * as they are. Every read is awaited; then rejects with the first failure (a store that cannot
 * read them back), or resolves.
 */
export async function prefetchSteps(trajectories: Iterable<Trajectory>, slabBytes = PREFETCH_SLAB_BYTES): Promise<void> {
  const reads: Array<Promise<void>> = [];
  let slab: Uint8Array | null = null;
  let at = 0;
  for (const t of trajectories) {
    const ahead = pendingSteps.get(t)?.ahead;
    if (!ahead || ahead.loaded) continue;
    const n = ahead.bytes;
    if (!slab || at + n > slab.length) {
      slab = Buffer.allocUnsafeSlow(Math.max(n, slabBytes));
      at = 0;
    }
    reads.push(ahead.read(slab.subarray(at, at + n)));
    at += n;
  }
  const failed = (await Promise.allSettled(reads)).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Index and trace of every step of `traj`: its steps when decoded, else, without decoding them,
 * one holder per step whose trace is still encoded (traceKind, shareTrace, pendingTraceBytes take
 * it like a step; reading its trace decodes that trace only).
 */
export function stepTraces(traj: Trajectory): ReadonlyArray<{ readonly index: number; trace?: PolicyTrace | undefined }> {
  const pendingViews = pendingSteps.get(traj)?.views();
  if (!pendingViews) return traj.steps;
  return pendingViews.map((v) => {
    let index = 0;
    const traces: Uint8Array[] = [];
    walk(
      v,
      0,
      v.length,
      (no, s, e) => {
        if (no === STEP_TRACE) traces.push(v.subarray(s, e));
      },
      (no, value) => {
        if (no === STEP_INDEX) index = value >>> 0;
      },
    );
    const holder: { index: number; trace?: PolicyTrace | undefined } = { index };
    if (traces.length === 1) attach(holder, traces[0] as Uint8Array);
    else if (traces.length > 1) attach(holder, join({ chunks: traces, length: traces.reduce((n, c) => n + c.length, 0) }));
    return holder;
  });
}

/** The encoded trace of `step` when it has not been read yet (decodeTrajectoryLazy / decodeScoredLazy), else undefined. */
export function pendingTraceBytes(step: object): Uint8Array | undefined {
  return pending.get(step);
}

/**
 * Gives `target` (e.g. a TrainStep) the trace of `step` without reading it: still undecoded when
 * it was, so it decodes on first read there (and pendingTraceBytes(target) has its bytes).
 */
export function shareTrace(step: { trace?: PolicyTrace | undefined }, target: { trace?: PolicyTrace | undefined }): void {
  const bytes = pending.get(step);
  if (bytes) attach(target, bytes);
  else target.trace = step.trace;
}

/**
 * The kind of a trace (its oneof case) without decoding it: 'pointer', 'tokens', or undefined
 * (no trace, or none of the kinds set).
 */
export function traceKind(step: { trace?: PolicyTrace | undefined }): PolicyTrace['kind']['case'] {
  const bytes = pending.get(step);
  if (!bytes) return step.trace?.kind.case;
  let kind: PolicyTrace['kind']['case'] = undefined;
  walk(bytes, 0, bytes.length, (no) => {
    if (no === 1) kind = 'pointer';
    else if (no === 2) kind = 'tokens';
  });
  return kind;
}

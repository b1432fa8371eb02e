// Encoding of trajectories with their pointer traces written directly. A pointer trace is most
// of a trajectory's numbers (every candidate's hashed features: ~1000 packed uint32s and floats
// per step), and protobuf-es writes a packed array one element at a time through its generic
// writer (a type check, a capacity check and a DataView call each): ~90 % of an actor's encoding
// time per trajectory. `encodeTrajectory` writes each pointer trace in one pass per array into a
// buffer of its exact size and hands it to protobuf-es as the step's trace field, already
// encoded (an unknown-field entry of the step's copy: written as it is, after the step's other
// fields). The result decodes exactly as `encode(TrajectorySchema, t)` (protobuf reads a field
// wherever it stands) and has the same length; only the trace field's place in each step differs.
// A trace this module does not write (a token trace, one carrying unknown fields, a value
// protobuf-es would reject) goes through protobuf-es as before, which also raises its errors.
import { WireType } from '@bufbuild/protobuf/wire';
import { encode, SCHEMA_VERSION } from './codec.js';
import { TrajectorySchema, type PointerTrace, type PolicyTrace, type Step, type Trajectory } from './gen/owrl/v1/trajectory_pb.js';

/** Field numbers (proto/owrl/v1/trajectory.proto). */
const STEP_TRACE = 6;
const TRACE_POINTER = 1;

const FLOAT32_MAX = 3.4028234663852886e38;
const UINT32_MAX = 0xffffffff;
const utf8 = new TextEncoder();

function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

function isUint32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= UINT32_MAX;
}

/** Encoded size of a packed uint32 array's elements, or -1 when one is not a uint32 (protobuf-es decides then). */
function packedUint32Size(xs: readonly number[]): number {
  let n = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i];
    if (!isUint32(v)) return -1;
    n += varintSize(v);
  }
  return n;
}

/**
 * Bytes of `s` in UTF-8 as TextEncoder writes it (what protobuf-es writes for a string): a lone
 * surrogate becomes U+FFFD, three bytes.
 */
function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two UTF-16 units, four bytes.
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

/** Whether every element is a number protobuf-es writes as a float (NaN and ±Infinity included). */
function floats(xs: readonly number[]): boolean {
  for (let i = 0; i < xs.length; i++) {
    const v = xs[i];
    if (typeof v !== 'number') return false;
    if (v > FLOAT32_MAX || v < -FLOAT32_MAX) {
      if (Number.isFinite(v) && !Number.isFinite(Math.fround(v))) return false;
    }
  }
  return true;
}

class Out {
  pos = 0;
  /** Floats and doubles are written as protobuf-es writes them (DataView, little-endian). */
  private readonly view: DataView;
  constructor(readonly b: Uint8Array) {
    this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  varint(v: number): void {
    const b = this.b;
    while (v > 0x7f) {
      b[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    b[this.pos++] = v;
  }
  packed(field: number, xs: readonly number[], bytes: number): void {
    if (xs.length === 0) return;
    this.varint((field << 3) | WireType.LengthDelimited);
    this.varint(bytes);
    for (let i = 0; i < xs.length; i++) this.varint(xs[i] as number);
  }
  floats(field: number, xs: readonly number[]): void {
    if (xs.length === 0) return;
    this.varint((field << 3) | WireType.LengthDelimited);
    this.varint(xs.length * 4);
    const view = this.view;
    for (let i = 0; i < xs.length; i++) {
      view.setFloat32(this.pos, xs[i] as number, true);
      this.pos += 4;
    }
  }
  double(field: number, v: number): void {
    // Implicit presence: protobuf-es leaves out +0 only (Object.is: -0 is written).
    if (Object.is(v, 0)) return;
    this.varint((field << 3) | WireType.Bit64);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  uint32(field: number, v: number): void {
    if (v === 0) return;
    this.varint((field << 3) | WireType.Varint);
    this.varint(v);
  }
  /** A string field of `bytes` UTF-8 bytes (utf8Length): ASCII written here, other text by TextEncoder. */
  string(field: number, v: string, bytes: number): void {
    this.varint((field << 3) | WireType.LengthDelimited);
    this.varint(bytes);
    const b = this.b;
    if (bytes === v.length) {
      // As many bytes as UTF-16 units: every character is ASCII.
      for (let i = 0; i < v.length; i++) b[this.pos++] = v.charCodeAt(i);
      return;
    }
    const { written } = utf8.encodeInto(v, b.subarray(this.pos, this.pos + bytes));
    if (written !== bytes) throw new Error(`string encoding wrote ${written} of ${bytes} bytes`);
    this.pos += bytes;
  }
}

/**
 * The step's trace field as protobuf-es writes an unknown field's data (its length, then the
 * PolicyTrace's bytes), for a pointer trace; undefined when this is not a trace written here.
 */
export function pointerTraceFieldData(trace: PolicyTrace): Uint8Array | undefined {
  if (trace.kind.case !== 'pointer' || (trace.$unknown?.length ?? 0) > 0) return undefined;
  const p: PointerTrace = trace.kind.value;
  if ((p.$unknown?.length ?? 0) > 0) return undefined;
  if (!isUint32(p.numCandidates) || !isUint32(p.chosen) || typeof p.logprob !== 'number' || typeof p.temperature !== 'number') return undefined;
  const offsets = packedUint32Size(p.offsets);
  const features = packedUint32Size(p.featureIndex);
  if (offsets < 0 || features < 0 || !floats(p.featureValue)) return undefined;
  // The labels' UTF-8 lengths; their bytes are written straight into the trace's buffer.
  const labels = p.candidateLabels;
  const labelBytes: number[] = [];
  for (const l of labels) {
    if (typeof l !== 'string') return undefined;
    labelBytes.push(utf8Length(l));
  }
  // PointerTrace's size, field by field (tags are one byte: fields 1-8).
  let size = 0;
  if (p.numCandidates !== 0) size += 1 + varintSize(p.numCandidates);
  if (p.offsets.length > 0) size += 1 + varintSize(offsets) + offsets;
  if (p.featureIndex.length > 0) size += 1 + varintSize(features) + features;
  if (p.featureValue.length > 0) size += 1 + varintSize(p.featureValue.length * 4) + p.featureValue.length * 4;
  if (p.chosen !== 0) size += 1 + varintSize(p.chosen);
  if (!Object.is(p.logprob, 0)) size += 9;
  if (!Object.is(p.temperature, 0)) size += 9;
  for (const n of labelBytes) size += 1 + varintSize(n) + n;
  // PolicyTrace { pointer = 1 }: written even when empty (a oneof case is set).
  const trace_ = 1 + varintSize(size) + size;
  const out = new Out(new Uint8Array(varintSize(trace_) + trace_));
  out.varint(trace_);
  out.varint((TRACE_POINTER << 3) | WireType.LengthDelimited);
  out.varint(size);
  out.uint32(1, p.numCandidates);
  out.packed(2, p.offsets, offsets);
  out.packed(3, p.featureIndex, features);
  out.floats(4, p.featureValue);
  out.uint32(5, p.chosen);
  out.double(6, p.logprob);
  out.double(7, p.temperature);
  for (let i = 0; i < labels.length; i++) out.string(8, labels[i] as string, labelBytes[i] as number);
  if (out.pos !== out.b.length) throw new Error(`pointer trace encoding wrote ${out.pos} of ${out.b.length} bytes`);
  return out.b;
}

/**
 * Encodes a Trajectory as `encode(TrajectorySchema, t)` does (`schemaVersion` filled in when 0),
 * its pointer traces written directly (see the module comment). `t` is not changed otherwise.
 */
export function encodeTrajectory(t: Trajectory): Uint8Array {
  if (t.schemaVersion === 0) t.schemaVersion = SCHEMA_VERSION;
  let steps: Step[] | null = null;
  const src = t.steps;
  for (let i = 0; i < src.length; i++) {
    const s = src[i] as Step;
    const data = s.trace ? pointerTraceFieldData(s.trace) : undefined;
    if (!data) continue;
    steps ??= src.slice();
    steps[i] = { ...s, trace: undefined, $unknown: [...(s.$unknown ?? []), { no: STEP_TRACE, wireType: WireType.LengthDelimited, data }] };
  }
  return encode(TrajectorySchema, steps ? { ...t, steps } : t);
}

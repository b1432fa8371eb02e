// Encoding of trajectories with their steps written directly. A step is most of a trajectory's
// bytes and fields (tool calls, effects, and a pointer trace: every candidate's hashed features,
// ~1000 packed uint32s and floats per step), and protobuf-es writes each field through a closure
// with a type assertion and a capacity check, a packed array one element at a time, and moves a
// nested message's bytes once its length is known. `encodeTrajectory` measures every step first
// (deciding on the way whether it can write it), then writes the whole trajectory once into one
// buffer of its exact size: the trajectory's other fields as protobuf-es encodes them, the steps
// in their place between them. The result is byte for byte `encode(TrajectorySchema, t)`. A step
// this module does not write (unknown fields in it, a value protobuf-es would reject) goes through
// protobuf-es, which also raises its errors; so does a trace that is not a pointer trace (a token
// trace), inside a step written here.
import { toBinary, type DescMessage } from '@bufbuild/protobuf';
import { WireType } from '@bufbuild/protobuf/wire';
import { encode, SCHEMA_VERSION } from './codec.js';
import {
  EffectSchema,
  ImageRefSchema,
  PointSchema,
  PolicyTraceSchema,
  StepSchema,
  StepTimingSchema,
  ToolCallSchema,
  ToolResultSchema,
  TrajectorySchema,
  type Effect,
  type ImageRef,
  type Point,
  type PointerTrace,
  type PolicyTrace,
  type Step,
  type StepTiming,
  type ToolCall,
  type ToolResult,
  type Trajectory,
} from './gen/owrl/v1/trajectory_pb.js';

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
    const v = xs[i] as number;
    // A number that is an integer in [0, 2^32) is its own unsigned 32-bit conversion (-0 as 0, as protobuf-es writes it).
    if (v >>> 0 !== v) return -1;
    n += v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
  }
  return n;
}

/**
 * Bytes of `s` in UTF-8 as TextEncoder writes it (what protobuf-es writes for a string): a lone
 * surrogate becomes U+FFFD, three bytes.
 */
/** Text longer than this is measured and written natively (fewer calls per character below it). */
const SHORT_TEXT = 32;

function utf8Length(s: string): number {
  // Natively for longer text (the same count: a lone surrogate is three bytes there too).
  if (s.length > SHORT_TEXT) return Buffer.byteLength(s, 'utf8');
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
    const b = this.b;
    let pos = this.pos;
    for (let i = 0; i < xs.length; i++) {
      let v = xs[i] as number;
      while (v > 0x7f) {
        b[pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[pos++] = v;
    }
    this.pos = pos;
  }
  floats(field: number, xs: readonly number[]): void {
    if (xs.length === 0) return;
    this.varint((field << 3) | WireType.LengthDelimited);
    this.varint(xs.length * 4);
    const view = this.view;
    let pos = this.pos;
    for (let i = 0; i < xs.length; i++) {
      view.setFloat32(pos, xs[i] as number, true);
      pos += 4;
    }
    this.pos = pos;
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
    if (bytes === v.length && bytes <= SHORT_TEXT) {
      // As many bytes as UTF-16 units: every character is ASCII (a short one is written here, a longer one natively).
      for (let i = 0; i < v.length; i++) b[this.pos++] = v.charCodeAt(i);
      return;
    }
    const { written } = utf8.encodeInto(v, b.subarray(this.pos, this.pos + bytes));
    if (written !== bytes) throw new Error(`string encoding wrote ${written} of ${bytes} bytes`);
    this.pos += bytes;
  }
}


/**
 * What the size pass learnt of a pointer trace that writePointer() then writes: the PointerTrace's
 * size, its packed arrays' sizes and its labels' UTF-8 lengths.
 */
interface PointerPlan {
  p: PointerTrace;
  /** PointerTrace's encoded size (inside PolicyTrace field 1). */
  size: number;
  offsets: number;
  features: number;
  labelBytes: number[];
}

/** The plan of a pointer trace written here, or undefined when protobuf-es has to write it. */
function pointerPlan(trace: PolicyTrace): PointerPlan | undefined {
  if (trace.kind.case !== 'pointer' || (trace.$unknown?.length ?? 0) > 0) return undefined;
  const p: PointerTrace = trace.kind.value;
  if ((p.$unknown?.length ?? 0) > 0) return undefined;
  if (!isUint32(p.numCandidates) || !isUint32(p.chosen) || typeof p.logprob !== 'number' || typeof p.temperature !== 'number') return undefined;
  const offsets = packedUint32Size(p.offsets);
  const features = packedUint32Size(p.featureIndex);
  if (offsets < 0 || features < 0 || !floats(p.featureValue)) return undefined;
  // The labels' UTF-8 lengths; their bytes are written straight into the output.
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
  return { p, size, offsets, features, labelBytes };
}

/** PolicyTrace's encoded size for a pointer plan: its field 1 (written even when empty: a oneof case is set). */
function policyTraceSize(plan: PointerPlan): number {
  return 1 + varintSize(plan.size) + plan.size;
}

/** Writes the PolicyTrace of `plan` (its fields, not its own tag and length). */
function writePointer(out: Out, plan: PointerPlan): void {
  const p = plan.p;
  out.varint((TRACE_POINTER << 3) | WireType.LengthDelimited);
  out.varint(plan.size);
  out.uint32(1, p.numCandidates);
  out.packed(2, p.offsets, plan.offsets);
  out.packed(3, p.featureIndex, plan.features);
  out.floats(4, p.featureValue);
  out.uint32(5, p.chosen);
  out.double(6, p.logprob);
  out.double(7, p.temperature);
  const labels = p.candidateLabels;
  for (let i = 0; i < labels.length; i++) out.string(8, labels[i] as string, plan.labelBytes[i] as number);
}

/** The encodings of sealed traces (sealTrace): frozen, so their bytes cannot go stale. */
const sealed = new WeakMap<PolicyTrace, Uint8Array>();

/** Every object and array reachable from `v` (typed arrays with elements throw: they cannot be frozen). */
function reachable(v: unknown, into: object[], path: string): void {
  if (typeof v !== 'object' || v === null) return;
  if (ArrayBuffer.isView(v)) {
    if (v.byteLength > 0) throw new TypeError(`sealTrace: ${path} holds bytes, which cannot be frozen`);
    return;
  }
  into.push(v);
  for (const [k, x] of Object.entries(v)) reachable(x, into, `${path}.${k}`);
}

/**
 * Freezes `trace` (deeply) and keeps its encoding, which encodeTrajectory then copies into every
 * trajectory holding it instead of writing the trace again; returns `trace`. For a trace that goes
 * into many trajectories (the synthetic actor's pool); a policy's own trace, written once, gains
 * nothing. A sealed trace cannot change: a writer that wants it different makes a new one.
 * @throws TypeError when the trace holds bytes (a typed array cannot be frozen); protobuf-es's
 *   errors for a trace it cannot encode.
 */
export function sealTrace(trace: PolicyTrace): PolicyTrace {
  if (sealed.has(trace)) return trace;
  const bytes = toBinary(PolicyTraceSchema, trace);
  const objects: object[] = [];
  reachable(trace, objects, 'trace');
  for (const o of objects) Object.freeze(o);
  sealed.set(trace, bytes);
  return trace;
}

/** Whether encodeTrajectory writes `trace` itself (a pointer trace it can write), not protobuf-es. */
export function writesTraceDirectly(trace: PolicyTrace): boolean {
  return pointerPlan(trace) !== undefined;
}

// Steps written directly (see the module comment): through protobuf-es, the rest of each step cost
// more than twice the whole direct encoding of a trajectory (`npm run bench -- bus` shows the
// encoding's share of an actor). The fields are written in protobuf-es's order (by number).

/** Field number of Trajectory.steps. */
const TRAJ_STEPS = 6;

/**
 * The fields the writer below writes, by message. A field added to one of these messages and not
 * to the writer would be left out of every step: then no step is written here (all go to
 * protobuf-es) until the writer learns it; `stepWriterCurrent` says which (a unit test checks it).
 */
const WRITTEN: ReadonlyArray<readonly [DescMessage, string]> = [
  [StepSchema, '1 index,2 reasoning,3 results,4 url_before,5 url_after,6 trace,7 timing,8 raw_output,9 parse_error,10 screenshot'],
  [ToolResultSchema, '1 call,2 ok,3 effects,4 latency_ms,5 error_code,6 points'],
  [ToolCallSchema, '1 name,2 args_json'],
  [EffectSchema, '1 kind,2 line,3 evidence'],
  [PointSchema, '1 x,2 y'],
  [StepTimingSchema, '1 policy_ms,2 action_ms,3 settle_ms,4 observe_ms'],
  [ImageRefSchema, '1 sha256,2 mime,3 width,4 height,5 bytes'],
];

/** Whether the step writer knows every field of the messages a step is made of. */
export const stepWriterCurrent = WRITTEN.every(([d, fields]) => d.fields.map((f) => `${f.number} ${f.name}`).join(',') === fields);

/**
 * Sizes the size pass found, in the order the write pass needs them: each nested message's size
 * (reserved before its fields are measured, filled in after) and each string's UTF-8 length.
 * Module state rather than per call: the passes are synchronous and run one step at a time.
 */
let sizes: number[] = [];
let at = 0;
/** Pointer plans and protobuf-es-encoded traces, in the order of the steps' traces. */
let traces: Array<PointerPlan | Uint8Array> = [];
let traceAt = 0;

const hasOwn = (m: object, k: string): boolean => Object.prototype.hasOwnProperty.call(m, k);
const unknownFields = (m: { $unknown?: unknown[] | undefined }): boolean => (m.$unknown?.length ?? 0) > 0;

/** Size of a string field (0 when empty, -1 when not a string); records its UTF-8 length. */
function strSize(v: unknown): number {
  if (typeof v !== 'string') return -1;
  if (v === '') return 0;
  const n = utf8Length(v);
  sizes.push(n);
  return 1 + varintSize(n) + n;
}

/** Size of an explicit-presence message field with `size` bytes of content. */
const msgSize = (size: number): number => 1 + varintSize(size) + size;

/** A number protobuf-es writes as int32 (a negative one is 10 bytes: sign-extended to 64 bits). */
function int32Size(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v > 0x7fffffff || v < -0x80000000) return -1;
  if (v === 0) return 0;
  return 1 + (v < 0 ? 10 : varintSize(v));
}

function doubleSize(v: unknown): number {
  if (typeof v !== 'number') return -1;
  return Object.is(v, 0) ? 0 : 9;
}

function boolSize(v: unknown): number {
  if (typeof v !== 'boolean') return -1;
  return v ? 2 : 0;
}

function uint32Size(v: unknown): number {
  if (!isUint32(v)) return -1;
  return v === 0 ? 0 : 1 + varintSize(v);
}

const UINT64_MAX = 0xffffffffffffffffn;

function uint64Size(v: unknown): number {
  if (typeof v !== 'bigint' || v < 0n || v > UINT64_MAX) return -1;
  if (v === 0n) return 0;
  let n = 1;
  for (let x = v >> 7n; x > 0n; x >>= 7n) n++;
  return 1 + n;
}

/** Adds `n` to `acc` unless either is -1 (not writable here). */
const add = (acc: number, n: number): number => (acc < 0 || n < 0 ? -1 : acc + n);

function effectSize(e: Effect): number {
  if (unknownFields(e)) return -1;
  let n = int32Size(e.kind);
  n = add(n, strSize(e.line));
  const ev = e.evidence;
  if (typeof ev !== 'object' || ev === null) return -1;
  for (const k of Object.keys(ev)) {
    const v = ev[k];
    if (typeof v !== 'string') return -1;
    const kb = utf8Length(k);
    const vb = utf8Length(v);
    sizes.push(kb, vb);
    // An entry: key (field 1) and value (field 2), both written even when empty.
    n = add(n, msgSize(1 + varintSize(kb) + kb + 1 + varintSize(vb) + vb));
  }
  return n;
}

function pointSize(p: Point): number {
  if (unknownFields(p)) return -1;
  return add(int32Size(p.x), int32Size(p.y));
}

/** Size of a nested message measured by `measure`, reserved in `sizes` before its fields. */
function nested<T>(m: T, measure: (m: T) => number): number {
  const k = sizes.length;
  sizes.push(0);
  const n = measure(m);
  if (n < 0) return -1;
  sizes[k] = n;
  return msgSize(n);
}

function toolCallSize(c: ToolCall): number {
  if (unknownFields(c)) return -1;
  return add(strSize(c.name), strSize(c.argsJson));
}

function toolResultSize(r: ToolResult): number {
  if (unknownFields(r)) return -1;
  let n = 0;
  if (r.call !== undefined && hasOwn(r, 'call')) n = add(n, nested(r.call, toolCallSize));
  n = add(n, boolSize(r.ok));
  for (const e of r.effects) n = add(n, nested(e, effectSize));
  n = add(n, doubleSize(r.latencyMs));
  n = add(n, strSize(r.errorCode));
  for (const p of r.points) n = add(n, nested(p, pointSize));
  return n;
}

function timingSize(t: StepTiming): number {
  if (unknownFields(t)) return -1;
  return add(add(doubleSize(t.policyMs), doubleSize(t.actionMs)), add(doubleSize(t.settleMs), doubleSize(t.observeMs)));
}

function imageSize(i: ImageRef): number {
  if (unknownFields(i)) return -1;
  return add(add(add(strSize(i.sha256), strSize(i.mime)), add(uint32Size(i.width), uint32Size(i.height))), uint64Size(i.bytes));
}

function traceSize(t: PolicyTrace): number {
  const bytes0 = sealed.get(t);
  if (bytes0) {
    traces.push(bytes0);
    return bytes0.length;
  }
  const plan = pointerPlan(t);
  if (plan) {
    traces.push(plan);
    return policyTraceSize(plan);
  }
  // Any other trace as protobuf-es writes it (which raises its errors).
  const bytes = toBinary(PolicyTraceSchema, t);
  traces.push(bytes);
  return bytes.length;
}

/** The encoded size of `s`, its sizes recorded for writeStep; -1 when protobuf-es has to write it. */
function stepSize(s: Step): number {
  if (unknownFields(s) || !Array.isArray(s.results)) return -1;
  let n = uint32Size(s.index);
  n = add(n, strSize(s.reasoning));
  for (const r of s.results) n = add(n, nested(r, toolResultSize));
  n = add(n, strSize(s.urlBefore));
  n = add(n, strSize(s.urlAfter));
  if (n >= 0 && s.trace !== undefined && hasOwn(s, 'trace')) {
    const k = sizes.length;
    sizes.push(0);
    const t = traceSize(s.trace);
    sizes[k] = t;
    n = add(n, msgSize(t));
  }
  if (s.timing !== undefined && hasOwn(s, 'timing')) n = add(n, nested(s.timing, timingSize));
  n = add(n, strSize(s.rawOutput));
  n = add(n, boolSize(s.parseError));
  if (s.screenshot !== undefined && hasOwn(s, 'screenshot')) n = add(n, nested(s.screenshot, imageSize));
  return n;
}

// The write pass: the same walk, reading back what the size pass recorded.

function writeStr(out: Out, field: number, v: string): void {
  if (v !== '') out.string(field, v, sizes[at++] as number);
}

function writeTag(out: Out, field: number, wire: WireType): void {
  out.varint((field << 3) | wire);
}

/** The tag and length of a nested message whose size the size pass recorded next. */
function writeNested(out: Out, field: number): void {
  writeTag(out, field, WireType.LengthDelimited);
  out.varint(sizes[at++] as number);
}

function writeInt32(out: Out, field: number, v: number): void {
  if (v === 0) return;
  writeTag(out, field, WireType.Varint);
  if (v > 0) return out.varint(v);
  // Sign-extended to 64 bits: the low 32 bits as they are, then the high 32 bits all ones.
  let lo = v >>> 0;
  for (let i = 0; i < 4; i++) {
    out.b[out.pos++] = (lo & 0x7f) | 0x80;
    lo >>>= 7;
  }
  // Bits 28-31 of the low word and bits 32-34 of the high word (all ones), then the rest.
  out.b[out.pos++] = (lo & 0x0f) | 0x70 | 0x80;
  for (let i = 0; i < 4; i++) out.b[out.pos++] = 0xff;
  out.b[out.pos++] = 0x01;
}

function writeBool(out: Out, field: number, v: boolean): void {
  if (!v) return;
  writeTag(out, field, WireType.Varint);
  out.b[out.pos++] = 1;
}

function writeUint64(out: Out, field: number, v: bigint): void {
  if (v === 0n) return;
  writeTag(out, field, WireType.Varint);
  while (v > 0x7fn) {
    out.b[out.pos++] = Number(v & 0x7fn) | 0x80;
    v >>= 7n;
  }
  out.b[out.pos++] = Number(v);
}

function writeEffect(out: Out, e: Effect): void {
  writeInt32(out, 1, e.kind);
  writeStr(out, 2, e.line);
  const ev = e.evidence;
  for (const k of Object.keys(ev)) {
    const kb = sizes[at++] as number;
    const vb = sizes[at++] as number;
    writeTag(out, 3, WireType.LengthDelimited);
    out.varint(1 + varintSize(kb) + kb + 1 + varintSize(vb) + vb);
    out.string(1, k, kb);
    out.string(2, ev[k] as string, vb);
  }
}

function writeToolResult(out: Out, r: ToolResult): void {
  if (r.call !== undefined && hasOwn(r, 'call')) {
    writeNested(out, 1);
    writeStr(out, 1, r.call.name);
    writeStr(out, 2, r.call.argsJson);
  }
  writeBool(out, 2, r.ok);
  for (const e of r.effects) {
    writeNested(out, 3);
    writeEffect(out, e);
  }
  out.double(4, r.latencyMs);
  writeStr(out, 5, r.errorCode);
  for (const p of r.points) {
    writeNested(out, 6);
    writeInt32(out, 1, p.x);
    writeInt32(out, 2, p.y);
  }
}

function writeStep(out: Out, s: Step): void {
  out.uint32(1, s.index);
  writeStr(out, 2, s.reasoning);
  for (const r of s.results) {
    writeNested(out, 3);
    writeToolResult(out, r);
  }
  writeStr(out, 4, s.urlBefore);
  writeStr(out, 5, s.urlAfter);
  if (s.trace !== undefined && hasOwn(s, 'trace')) {
    writeNested(out, STEP_TRACE);
    const t = traces[traceAt++] as PointerPlan | Uint8Array;
    if (t instanceof Uint8Array) {
      out.b.set(t, out.pos);
      out.pos += t.length;
    } else writePointer(out, t);
  }
  if (s.timing !== undefined && hasOwn(s, 'timing')) {
    const t = s.timing;
    writeNested(out, 7);
    out.double(1, t.policyMs);
    out.double(2, t.actionMs);
    out.double(3, t.settleMs);
    out.double(4, t.observeMs);
  }
  writeStr(out, 8, s.rawOutput);
  writeBool(out, 9, s.parseError);
  if (s.screenshot !== undefined && hasOwn(s, 'screenshot')) {
    const i = s.screenshot;
    writeNested(out, 10);
    writeStr(out, 1, i.sha256);
    writeStr(out, 2, i.mime);
    out.uint32(3, i.width);
    out.uint32(4, i.height);
    writeUint64(out, 5, i.bytes);
  }
}

/**
 * Where the steps go in `head` (a trajectory encoded without steps): before its first field
 * numbered above Trajectory.steps, as protobuf-es writes fields by number (its end when it has none).
 */
function stepsPlace(head: Uint8Array): number {
  let pos = 0;
  const varintAt = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      const x = head[pos++] as number;
      v += (x & 0x7f) * mul;
      if ((x & 0x80) === 0) return v;
      mul *= 128;
    }
  };
  while (pos < head.length) {
    const start = pos;
    const tag = varintAt();
    if (Math.floor(tag / 8) > TRAJ_STEPS) return start;
    switch (tag & 7) {
      case WireType.Varint:
        varintAt();
        break;
      case WireType.Bit64:
        pos += 8;
        break;
      case WireType.LengthDelimited: {
        const len = varintAt();
        pos += len;
        break;
      }
      case WireType.Bit32:
        pos += 4;
        break;
      default:
        // A group (only in unknown fields, which protobuf-es writes last): the steps go at the end.
        return head.length;
    }
  }
  return head.length;
}

/**
 * Encodes a Trajectory as `encode(TrajectorySchema, t)` does (`schemaVersion` filled in when 0):
 * the same bytes, its steps written directly (see above). `t` is not changed otherwise.
 */
export function encodeTrajectory(t: Trajectory): Uint8Array {
  if (t.schemaVersion === 0) t.schemaVersion = SCHEMA_VERSION;
  const steps = t.steps;
  if (steps.length === 0) return encode(TrajectorySchema, t);
  const head = encode(TrajectorySchema, { ...t, steps: [] });
  const place = stepsPlace(head);
  // Per step: its size and, for one protobuf-es has to write, its bytes.
  const stepSizes = new Array<number>(steps.length);
  const fallback = new Array<Uint8Array | undefined>(steps.length);
  sizes = [];
  traces = [];
  let total = head.length;
  try {
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i] as Step;
      const mark = sizes.length;
      const traceMark = traces.length;
      let n = stepWriterCurrent ? stepSize(s) : -1;
      if (n < 0) {
        sizes.length = mark;
        traces.length = traceMark;
        const bytes = toBinary(StepSchema, s);
        fallback[i] = bytes;
        n = bytes.length;
      }
      stepSizes[i] = n;
      total += 1 + varintSize(n) + n;
    }
    const out = new Out(new Uint8Array(total));
    out.b.set(head.subarray(0, place), 0);
    out.pos = place;
    at = 0;
    traceAt = 0;
    for (let i = 0; i < steps.length; i++) {
      const n = stepSizes[i] as number;
      writeTag(out, TRAJ_STEPS, WireType.LengthDelimited);
      out.varint(n);
      const bytes = fallback[i];
      const start = out.pos;
      if (bytes) {
        out.b.set(bytes, out.pos);
        out.pos += bytes.length;
      } else writeStep(out, steps[i] as Step);
      if (out.pos - start !== n) throw new Error(`step ${i}: encoding wrote ${out.pos - start} of ${n} bytes`);
    }
    out.b.set(head.subarray(place), out.pos);
    out.pos += head.length - place;
    if (out.pos !== total) throw new Error(`trajectory encoding wrote ${out.pos} of ${total} bytes`);
    return out.b;
  } finally {
    sizes = [];
    traces = [];
  }
}

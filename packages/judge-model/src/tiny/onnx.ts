// Small helpers to write ONNX graphs with onnx-proto (opset 17, IR 8) for the generated judge
// models: initializers (float32, float16 or int64; inline or in an external data file, as exports
// of models over 2 GB must be), typed graph inputs/outputs with symbolic or fixed dims, nodes with
// attributes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const TINY_OPSET = 17;
export const TINY_IR_VERSION = 8;

export const DType = { FLOAT: 1, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;
const ATTR = { FLOAT: 1, INT: 2, INTS: 7 } as const;

export type Dim = number | string;
/** Integer attributes, or a float one written as `{ f }`. */
export type Attr = number | number[] | { f: number };

/** Where an initializer's bytes sit in the external data file. */
export interface ExternalRef {
  location: string;
  offset: number;
  length: number;
}

export interface InitializerSpec {
  name: string;
  dims: number[];
  float?: Float32Array;
  /** float16 bit patterns. */
  half?: Uint16Array;
  int64?: number[];
  /** Already written to an external data file (float32, or float16 with `externalType`). */
  external?: ExternalRef;
  externalType?: number;
}

export interface GraphSpec {
  name: string;
  nodes: Array<{ op: string; inputs: string[]; outputs: string[]; attrs?: Record<string, Attr> }>;
  initializers: InitializerSpec[];
  inputs: Array<{ name: string; type: number; dims: Dim[] }>;
  outputs: Array<{ name: string; type: number; dims: Dim[] }>;
}

export function littleEndian(a: Float32Array | Uint16Array): Uint8Array {
  // Typed arrays are in the machine's byte order; ONNX raw data is little-endian (as x86 and Arm are).
  if (os.endianness() === 'LE') return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const out = new Uint8Array(a.byteLength);
  const dv = new DataView(out.buffer);
  if (a instanceof Float32Array) for (let i = 0; i < a.length; i++) dv.setFloat32(i * 4, a[i] ?? 0, true);
  else for (let i = 0; i < a.length; i++) dv.setUint16(i * 2, a[i] ?? 0, true);
  return out;
}

function valueInfo(v: { name: string; type: number; dims: Dim[] }) {
  return {
    name: v.name,
    type: { tensorType: { elemType: v.type, shape: { dim: v.dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
  };
}

function attribute(name: string, v: Attr) {
  if (Array.isArray(v)) return { name, type: ATTR.INTS, ints: v };
  if (typeof v === 'object') return { name, type: ATTR.FLOAT, f: v.f };
  return { name, type: ATTR.INT, i: v };
}

/**
 * Appends tensors' bytes to a model's external data file, each at an offset aligned to 4096 bytes
 * so that onnxruntime can map it instead of copying.
 */
export class ExternalDataWriter {
  private offset = 0;
  private readonly fd: number;

  constructor(
    dir: string,
    readonly location: string,
  ) {
    this.fd = fs.openSync(path.join(dir, location), 'w');
  }

  append(bytes: Uint8Array): ExternalRef {
    const offset = Math.ceil(this.offset / 4096) * 4096;
    let written = 0;
    while (written < bytes.length) written += fs.writeSync(this.fd, bytes, written, bytes.length - written, offset + written);
    this.offset = offset + bytes.length;
    return { location: this.location, offset, length: bytes.length };
  }

  /** Writes a tensor produced in chunks (each already little-endian bytes) as one entry. */
  appendChunks(chunks: Iterable<Uint8Array>): ExternalRef {
    const offset = Math.ceil(this.offset / 4096) * 4096;
    let at = offset;
    for (const c of chunks) {
      let written = 0;
      while (written < c.length) written += fs.writeSync(this.fd, c, written, c.length - written, at + written);
      at += c.length;
    }
    this.offset = at;
    return { location: this.location, offset, length: at - offset };
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

function initializer(t: InitializerSpec) {
  if (t.external !== undefined) {
    return {
      name: t.name,
      dataType: t.externalType ?? DType.FLOAT,
      dims: t.dims,
      dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
      externalData: [
        { key: 'location', value: t.external.location },
        { key: 'offset', value: String(t.external.offset) },
        { key: 'length', value: String(t.external.length) },
      ],
    };
  }
  if (t.float !== undefined) return { name: t.name, dataType: DType.FLOAT, dims: t.dims, rawData: littleEndian(t.float) };
  if (t.half !== undefined) return { name: t.name, dataType: DType.FLOAT16, dims: t.dims, rawData: littleEndian(t.half) };
  return { name: t.name, dataType: DType.INT64, dims: t.dims, int64Data: t.int64 ?? [] };
}

/** Serialises a graph as an ONNX ModelProto. */
export function encodeModel(g: GraphSpec): Uint8Array {
  const graph = {
    name: g.name,
    node: g.nodes.map((n, i) => ({
      opType: n.op,
      input: n.inputs,
      output: n.outputs,
      name: `${n.op.toLowerCase()}_${i}`,
      attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attribute(k, v)),
    })),
    initializer: g.initializers.map(initializer),
    input: g.inputs.map(valueInfo),
    output: g.outputs.map(valueInfo),
  };
  const msg = onnx.ModelProto.create({
    irVersion: TINY_IR_VERSION,
    producerName: 'owrl',
    producerVersion: '1',
    domain: 'owrl.tiny',
    modelVersion: 1,
    docString: 'owrl generated judge graph (tests and benchmarks)',
    opsetImport: [{ domain: '', version: TINY_OPSET }],
    graph,
  });
  return onnx.ModelProto.encode(msg).finish();
}

export interface WriteModelOptions {
  /**
   * Put float initializers of at least `minBytes` (default 1024) into this file next to the
   * graph, as exporters do for models over protobuf's 2 GB limit.
   */
  externalData?: { location: string; minBytes?: number };
}

export function writeModel(file: string, g: GraphSpec, opts: WriteModelOptions = {}): void {
  const ext = opts.externalData;
  if (ext === undefined) {
    fs.writeFileSync(file, encodeModel(g));
    return;
  }
  const writer = new ExternalDataWriter(path.dirname(file), ext.location);
  try {
    const initializers = g.initializers.map((t): InitializerSpec => {
      const data = t.float ?? t.half;
      if (data === undefined || data.byteLength < (ext.minBytes ?? 1024)) return t;
      return { name: t.name, dims: t.dims, external: writer.append(littleEndian(data)), externalType: t.half !== undefined ? DType.FLOAT16 : DType.FLOAT };
    });
    fs.writeFileSync(file, encodeModel({ ...g, initializers }));
  } finally {
    writer.close();
  }
}



/** A one-node graph (y = x + x) to find out whether a device runs at all (probeDevice). */
export function probeGraphBytes(): Uint8Array {
  return encodeModel({
    name: 'owrl_device_probe',
    nodes: [{ op: 'Add', inputs: ['x', 'x'], outputs: ['y'] }],
    initializers: [],
    inputs: [{ name: 'x', type: DType.FLOAT, dims: [4] }],
    outputs: [{ name: 'y', type: DType.FLOAT, dims: [4] }],
  });
}

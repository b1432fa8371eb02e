// Small helpers to write ONNX graphs with onnx-proto (opset 17, IR 8) for the tiny judge models:
// initializers, typed graph inputs/outputs with symbolic or fixed dims, nodes with attributes.
import fs from 'node:fs';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const TINY_OPSET = 17;
export const TINY_IR_VERSION = 8;

export const DType = { FLOAT: 1, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;
const ATTR = { INT: 2, INTS: 7 } as const;

export type Dim = number | string;
/** Integer attributes only (all these graphs need). */
export type Attr = number | number[];

export interface GraphSpec {
  name: string;
  nodes: Array<{ op: string; inputs: string[]; outputs: string[]; attrs?: Record<string, Attr> }>;
  initializers: Array<{ name: string; float?: Float32Array; int64?: number[]; dims: number[] }>;
  inputs: Array<{ name: string; type: number; dims: Dim[] }>;
  outputs: Array<{ name: string; type: number; dims: Dim[] }>;
}

function floatBytes(a: Float32Array): Uint8Array {
  const out = new Uint8Array(a.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < a.length; i++) dv.setFloat32(i * 4, a[i] ?? 0, true);
  return out;
}

function valueInfo(v: { name: string; type: number; dims: Dim[] }) {
  return {
    name: v.name,
    type: { tensorType: { elemType: v.type, shape: { dim: v.dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } } },
  };
}

function attribute(name: string, v: Attr) {
  return Array.isArray(v) ? { name, type: ATTR.INTS, ints: v } : { name, type: ATTR.INT, i: v };
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
    initializer: g.initializers.map((t) =>
      t.float !== undefined
        ? { name: t.name, dataType: DType.FLOAT, dims: t.dims, rawData: floatBytes(t.float) }
        : { name: t.name, dataType: DType.INT64, dims: t.dims, int64Data: t.int64 ?? [] },
    ),
    input: g.inputs.map(valueInfo),
    output: g.outputs.map(valueInfo),
  };
  const msg = onnx.ModelProto.create({
    irVersion: TINY_IR_VERSION,
    producerName: 'owrl',
    producerVersion: '1',
    domain: 'owrl.tiny',
    modelVersion: 1,
    docString: 'owrl tiny judge graph (tests and benchmarks)',
    opsetImport: [{ domain: '', version: TINY_OPSET }],
    graph,
  });
  return onnx.ModelProto.encode(msg).finish();
}

export function writeModel(file: string, g: GraphSpec): void {
  fs.writeFileSync(file, encodeModel(g));
}

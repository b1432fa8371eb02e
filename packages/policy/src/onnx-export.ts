// ONNX form of the pointer model (opset 13, IR 7), built with onnx-proto:
//   logits    = ReduceSum(Gather(weights, feat_index) * feat_value, axes=[1]) / temperature
//   log_probs = LogSoftmax(logits)
// Inputs feat_index int64 [C, F] and feat_value float32 [C, F] are the CSR features padded per
// candidate (pad index 0, value 0). Weights and temperature are initializers; the exact
// temperature and the dimension are also kept in metadata_props for lossless readback.
import onnxProto from 'onnx-proto';
import { PolicyError, PolicyErrorCode } from './errors.js';

const { onnx } = onnxProto;

/** What an ONNX pointer artifact holds. */
export interface PointerWeights {
  dim: number;
  weights: Float32Array;
  temperature: number;
}

export const ONNX_OPSET = 13;
export const ONNX_IR_VERSION = 7;
export const ONNX_INPUTS = { featIndex: 'feat_index', featValue: 'feat_value' } as const;
export const ONNX_OUTPUTS = { logits: 'logits', logProbs: 'log_probs' } as const;

const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

function floatBytes(a: Float32Array): Uint8Array {
  const out = new Uint8Array(a.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < a.length; i++) dv.setFloat32(i * 4, a[i] ?? 0, true);
  return out;
}

function tensorType(elemType: number, dims: string[]) {
  return { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimParam: d })) } } };
}

/** Serialises the model as an ONNX ModelProto. */
export function exportOnnx(model: PointerWeights): Uint8Array {
  if (model.weights.length !== model.dim) {
    throw new PolicyError(PolicyErrorCode.InvalidArgument, `weights has length ${model.weights.length}; expected dim ${model.dim}`);
  }
  const graph = {
    name: 'owrl_pointer_policy',
    node: [
      { opType: 'Gather', input: ['weights', 'feat_index'], output: ['gathered'], name: 'gather' },
      { opType: 'Mul', input: ['gathered', 'feat_value'], output: ['weighted'], name: 'mul' },
      {
        opType: 'ReduceSum',
        input: ['weighted', 'reduce_axes'],
        output: ['scores'],
        name: 'reduce_sum',
        attribute: [{ name: 'keepdims', type: ATTR_INT, i: 0 }],
      },
      { opType: 'Div', input: ['scores', 'temperature'], output: ['logits'], name: 'div_temperature' },
      {
        opType: 'LogSoftmax',
        input: ['logits'],
        output: ['log_probs'],
        name: 'log_softmax',
        attribute: [{ name: 'axis', type: ATTR_INT, i: -1 }],
      },
    ],
    initializer: [
      { name: 'weights', dataType: FLOAT, dims: [model.dim], rawData: floatBytes(model.weights) },
      { name: 'temperature', dataType: FLOAT, dims: [], rawData: floatBytes(Float32Array.of(model.temperature)) },
      { name: 'reduce_axes', dataType: INT64, dims: [1], int64Data: [1] },
    ],
    input: [
      { name: ONNX_INPUTS.featIndex, type: tensorType(INT64, ['C', 'F']) },
      { name: ONNX_INPUTS.featValue, type: tensorType(FLOAT, ['C', 'F']) },
    ],
    output: [
      { name: ONNX_OUTPUTS.logits, type: tensorType(FLOAT, ['C']) },
      { name: ONNX_OUTPUTS.logProbs, type: tensorType(FLOAT, ['C']) },
    ],
  };
  const msg = onnx.ModelProto.create({
    irVersion: ONNX_IR_VERSION,
    producerName: 'owrl',
    producerVersion: '1',
    domain: 'owrl',
    modelVersion: 1,
    docString: 'owrl built-in pointer policy: linear scores over hashed candidate features',
    opsetImport: [{ domain: '', version: ONNX_OPSET }],
    metadataProps: [
      { key: 'owrl.kind', value: 'onnx-pointer' },
      { key: 'owrl.dim', value: String(model.dim) },
      { key: 'owrl.temperature', value: String(model.temperature) },
    ],
    graph,
  });
  return onnx.ModelProto.encode(msg).finish();
}

function toNum(x: unknown): number {
  if (typeof x === 'number') return x;
  if (x && typeof (x as { toNumber?: unknown }).toNumber === 'function') return (x as { toNumber(): number }).toNumber();
  return Number(x);
}

function readFloats(t: { rawData?: Uint8Array | null; floatData?: number[] | null }): Float32Array {
  if (t.rawData && t.rawData.length > 0) {
    const dv = new DataView(t.rawData.buffer, t.rawData.byteOffset, t.rawData.byteLength);
    const out = new Float32Array(t.rawData.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = dv.getFloat32(i * 4, true);
    return out;
  }
  return Float32Array.from(t.floatData ?? []);
}

/**
 * Recovers weights and temperature from an artifact made by {@link exportOnnx}.
 * @throws PolicyError POLICY_INVALID_ARTIFACT when the bytes are not such a model.
 */
export function readOnnxWeights(bytes: Uint8Array): PointerWeights {
  let m: InstanceType<typeof onnx.ModelProto>;
  try {
    m = onnx.ModelProto.decode(bytes);
  } catch (cause) {
    throw new PolicyError(PolicyErrorCode.InvalidArtifact, `cannot decode ${bytes.length} bytes as an ONNX model: ${(cause as Error).message}`, { cause });
  }
  const inits = m.graph?.initializer ?? [];
  const w = inits.find((t) => t.name === 'weights');
  const t = inits.find((x) => x.name === 'temperature');
  if (!w || !t) {
    throw new PolicyError(PolicyErrorCode.InvalidArtifact, 'ONNX model has no "weights"/"temperature" initializers; not an owrl pointer policy');
  }
  const weights = readFloats(w);
  const dims = (w.dims ?? []).map(toNum);
  if (dims.length !== 1 || dims[0] !== weights.length) {
    throw new PolicyError(PolicyErrorCode.InvalidArtifact, `weights initializer has dims [${dims.join(', ')}] but ${weights.length} values`);
  }
  const meta = new Map((m.metadataProps ?? []).map((p) => [p.key ?? '', p.value ?? '']));
  const exactT = Number(meta.get('owrl.temperature'));
  const temperature = Number.isFinite(exactT) && exactT > 0 ? exactT : (readFloats(t)[0] ?? NaN);
  if (!(temperature > 0)) {
    throw new PolicyError(PolicyErrorCode.InvalidArtifact, `ONNX model temperature is ${temperature}; expected > 0`);
  }
  return { dim: weights.length, weights, temperature };
}

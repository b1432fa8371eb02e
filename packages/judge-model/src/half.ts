// IEEE 754 half precision: onnxruntime-node hands float16 tensors over as Uint16Array bit patterns
// (Float16Array where the runtime has one); the judge reads logits and writes fp16 inputs with these.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The value of a binary16 bit pattern. */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac === 0 ? sign * Infinity : NaN;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** The nearest binary16 bit pattern (round to nearest even; overflow to ±Infinity). */
export function floatToHalf(value: number): number {
  f32[0] = value;
  const x = u32[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = mant >> shift;
    const rest = mant & ((1 << shift) - 1);
    if (rest > half || (rest === half && (r & 1) === 1)) r++;
    return sign | r;
  }
  let r = mant >> 13;
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1) === 1)) {
    r++;
    if (r === 0x400) {
      r = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | r;
}

/** Element `i` of float tensor data as a number, whatever its element type. */
export function readFloat(data: unknown, type: string, i: number): number {
  if (type === 'float16' && data instanceof Uint16Array) return halfToFloat(data[i] ?? 0);
  const v = (data as ArrayLike<number>)[i];
  return typeof v === 'number' ? v : NaN;
}

// Screenshot preprocessing for vision-language judges, Qwen2-VL style: JPEG decoded with jpeg-js,
// resized (bilinear) to a multiple of patch × merge within [min_pixels, max_pixels], rescaled and
// normalized per channel, and cut into flattened patches ordered merge block by merge block.
import jpeg from 'jpeg-js';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';
import type { PreprocessorConfig } from './folder.js';

/** An RGB image, 3 bytes per pixel, row-major. */
export interface RgbImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface ImagePatches {
  /** [numPatches, patchDim] row-major; patchDim = 3 · temporal_patch_size · patch_size². */
  patches: Float32Array;
  numPatches: number;
  patchDim: number;
  /** (t, h, w) in patches: the image_grid_thw row. */
  grid: [number, number, number];
  /** Placeholder tokens the image takes in the prompt: t·h·w / merge². */
  tokens: number;
}

/** Python's round(): halves go to the even neighbour. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * Target (height, width): multiples of patch·merge, aspect ratio kept, pixel count within
 * [minPixels, maxPixels].
 */
export function smartResize(height: number, width: number, cfg: PreprocessorConfig): [number, number] {
  const factor = cfg.patchSize * cfg.mergeSize;
  if (height <= 0 || width <= 0) throw new JudgeModelError(JudgeModelErrorCode.BadImage, `image size ${width}x${height} is empty`);
  if (Math.max(height, width) / Math.min(height, width) > 200) {
    throw new JudgeModelError(JudgeModelErrorCode.BadImage, `image aspect ratio of ${width}x${height} exceeds 200`);
  }
  let h = Math.max(factor, roundHalfEven(height / factor) * factor);
  let w = Math.max(factor, roundHalfEven(width / factor) * factor);
  if (h * w > cfg.maxPixels) {
    const beta = Math.sqrt((height * width) / cfg.maxPixels);
    h = Math.max(factor, Math.floor(height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (h * w < cfg.minPixels) {
    const beta = Math.sqrt(cfg.minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return [h, w];
}

/** Bilinear resize with half-pixel centres, to channel-planar floats [3, h, w] in 0..255. */
function resizePlanar(img: RgbImage, h: number, w: number): Float32Array {
  const out = new Float32Array(3 * h * w);
  const sy = img.height / h;
  const sx = img.width / w;
  for (let y = 0; y < h; y++) {
    const fy = Math.min(Math.max((y + 0.5) * sy - 0.5, 0), img.height - 1);
    const y0 = Math.floor(fy);
    const y1 = Math.min(y0 + 1, img.height - 1);
    const dy = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(Math.max((x + 0.5) * sx - 0.5, 0), img.width - 1);
      const x0 = Math.floor(fx);
      const x1 = Math.min(x0 + 1, img.width - 1);
      const dx = fx - x0;
      for (let c = 0; c < 3; c++) {
        const p = (yy: number, xx: number) => img.data[(yy * img.width + xx) * 3 + c] ?? 0;
        const top = p(y0, x0) * (1 - dx) + p(y0, x1) * dx;
        const bottom = p(y1, x0) * (1 - dx) + p(y1, x1) * dx;
        out[(c * h + y) * w + x] = top * (1 - dy) + bottom * dy;
      }
    }
  }
  return out;
}

/** Resizes, normalizes and patches an RGB image. */
export function preprocessImage(img: RgbImage, cfg: PreprocessorConfig): ImagePatches {
  const factor = cfg.patchSize * cfg.mergeSize;
  let h = img.height;
  let w = img.width;
  if (cfg.doResize) {
    [h, w] = smartResize(img.height, img.width, cfg);
  } else if (h % factor !== 0 || w % factor !== 0) {
    throw new JudgeModelError(JudgeModelErrorCode.BadImage, `image ${w}x${h} is not a multiple of ${factor} and do_resize is false`);
  }
  const planar = resizePlanar(img, h, w);
  for (let c = 0; c < 3; c++) {
    const scale = cfg.doRescale ? cfg.rescaleFactor : 1;
    const mean = cfg.doNormalize ? (cfg.mean[c] ?? 0) : 0;
    const std = cfg.doNormalize ? (cfg.std[c] ?? 1) : 1;
    // rounded to float32 after rescaling, then after normalizing: the order transformers.js and
    // the Python processor use, so pixel values match them to the bit
    for (let i = c * h * w; i < (c + 1) * h * w; i++) planar[i] = (Math.fround((planar[i] ?? 0) * scale) - mean) / std;
  }
  const ps = cfg.patchSize;
  const m = cfg.mergeSize;
  const tps = cfg.temporalPatchSize;
  const gh = h / ps;
  const gw = w / ps;
  const patchDim = 3 * tps * ps * ps;
  const numPatches = gh * gw;
  const patches = new Float32Array(numPatches * patchDim);
  // Order: merge block row, merge block column, row and column inside the block; each patch
  // vector is (channel, temporal copy, y, x). A still image is repeated on the temporal axis.
  let k = 0;
  for (let bh = 0; bh < gh / m; bh++) {
    for (let bw = 0; bw < gw / m; bw++) {
      for (let ih = 0; ih < m; ih++) {
        for (let iw = 0; iw < m; iw++) {
          const y0 = (bh * m + ih) * ps;
          const x0 = (bw * m + iw) * ps;
          const base = k * patchDim;
          let o = 0;
          for (let c = 0; c < 3; c++) {
            for (let t = 0; t < tps; t++) {
              for (let y = 0; y < ps; y++) {
                for (let x = 0; x < ps; x++) patches[base + o++] = planar[(c * h + y0 + y) * w + x0 + x] ?? 0;
              }
            }
          }
          k++;
        }
      }
    }
  }
  return { patches, numPatches, patchDim, grid: [1, gh, gw], tokens: numPatches / (m * m) };
}

/** Decodes JPEG bytes to RGB. @throws JudgeModelError JUDGE_MODEL_BAD_IMAGE */
export function decodeJpeg(bytes: Uint8Array): RgbImage {
  try {
    const d = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: 64, maxMemoryUsageInMB: 512 });
    return { width: d.width, height: d.height, data: d.data };
  } catch (cause) {
    throw new JudgeModelError(JudgeModelErrorCode.BadImage, `final screenshot (${bytes.length} bytes) is not a decodable JPEG: ${(cause as Error).message}`, { cause });
  }
}

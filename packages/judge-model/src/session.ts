// onnxruntime-node sessions on the requested device. `cuda` and `webgpu` use that execution
// provider only and fail with an error naming what is missing; `auto` tries CUDA, then WebGPU,
// then the CPU, and records why it passed over each device it did not use (a provider list
// ['cuda', 'cpu'] does not fall back in onnxruntime-node, so the order is walked here).
//
// What each device needs: the CUDA provider is not in the npm package (onnxruntime-node's install
// step downloads it, built for CUDA 12 and cuDNN 9); the WebGPU provider is built into the
// libonnxruntime that npm installs and runs on Dawn, which on Linux talks to the GPU through the
// Vulkan loader (libvulkan.so.1) and the GPU driver's Vulkan ICD. Both are checked before a
// session is tried, so a machine without them gets a precise reason and no native error spew.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { isJudgeModelError, JudgeModelError, JudgeModelErrorCode } from './errors.js';

export const JUDGE_DEVICES = ['auto', 'cuda', 'webgpu', 'cpu'] as const;
export type JudgeDevice = (typeof JUDGE_DEVICES)[number];
export type ResolvedDevice = Exclude<JudgeDevice, 'auto'>;
export type GpuDevice = Exclude<ResolvedDevice, 'cpu'>;

/** The order `auto` tries. */
export const AUTO_ORDER: readonly ResolvedDevice[] = ['cuda', 'webgpu', 'cpu'];

export function isGpu(d: ResolvedDevice): d is GpuDevice {
  return d !== 'cpu';
}

/** Why a device could not be used: a short code (metrics label) and the whole story. */
export interface DeviceSkip {
  device: GpuDevice;
  code: DeviceSkipCode;
  reason: string;
}

export type DeviceSkipCode =
  | 'cuda_provider_missing'
  | 'cuda_unusable'
  | 'vulkan_loader_missing'
  | 'webgpu_no_adapter'
  | 'webgpu_unusable';

export interface SessionSettings {
  /** onnxruntime intra-op threads per session on the CPU. */
  threads: number;
  /** On a GPU: intra-op threads for the nodes left on the CPU (default `threads`). */
  gpuThreads?: number;
}

/**
 * Intra-op threads of a GPU session when none are asked for: only the nodes the provider leaves
 * on the CPU (shape arithmetic, mostly) use them, and a pool as wide as the machine would compete
 * with the threads that prepare prompts.
 */
export function defaultGpuThreads(cores: number): number {
  return Math.max(1, Math.min(4, cores));
}

/** Folder of the native binding, where the CUDA provider libraries have to be. */
function ortBinDir(): string {
  const main = createRequire(import.meta.url).resolve('onnxruntime-node');
  return path.join(path.dirname(main), '..', 'bin', 'napi-v6', process.platform, process.arch);
}

const CUDA_LIBS = ['libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so'];
const CUDA_HOWTO =
  'install the provider with `npm rebuild onnxruntime-node --onnxruntime-node-install=cuda12` ' +
  '(or ONNXRUNTIME_NODE_INSTALL=cuda12 during npm install), with the CUDA 12 and cuDNN 9 runtime libraries on LD_LIBRARY_PATH and an NVIDIA GPU visible';
const VULKAN_LOADER = 'libvulkan.so.1';
const ICD_HOWTO =
  'install the GPU driver with its Vulkan driver (ICD); where its ICD file is outside the loader\'s search path ' +
  '(containers: the NVIDIA toolkit mounts it under /usr/local/nvidia/share/vulkan/icd.d), point VK_DRIVER_FILES at it; ' +
  'NVIDIA\'s ICD (libGLX_nvidia.so.0) also needs libglvnd (Debian/Ubuntu: libglvnd0, libglx0, libegl1)';

function skip(device: GpuDevice, code: DeviceSkipCode, reason: string): DeviceSkip {
  return { device, code, reason };
}

/** The CUDA provider's libraries next to the binding, or why they are not there (Linux only). */
function cudaPrecheck(): DeviceSkip | undefined {
  if (process.platform !== 'linux') return undefined;
  const dir = ortBinDir();
  const missing = CUDA_LIBS.filter((f) => !fs.existsSync(path.join(dir, f)));
  if (missing.length === 0) return undefined;
  return skip(
    'cuda',
    'cuda_provider_missing',
    `the CUDA execution provider is not installed: ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing from ${dir} (the npm package does not ship it); ${CUDA_HOWTO}`,
  );
}

let vulkanLoader: { ok: true } | { ok: false; why: string } | undefined;

/**
 * Whether the Vulkan loader can be loaded (Linux; Dawn reaches the GPU through it). Loaded through
 * Node's dlopen: a library that is found but is not a Node addon fails with "did not
 * self-register" after it was loaded, which is the answer sought; one that is not found fails
 * with the loader's own message.
 */
function vulkanLoaderPresent(): { ok: true } | { ok: false; why: string } {
  if (vulkanLoader !== undefined) return vulkanLoader;
  try {
    process.dlopen({ exports: {} } as NodeJS.Module, VULKAN_LOADER);
    vulkanLoader = { ok: true };
  } catch (e) {
    const msg = (e as Error).message;
    vulkanLoader = /self-register|undefined symbol|module_register/i.test(msg) ? { ok: true } : { ok: false, why: msg.trim() };
  }
  return vulkanLoader;
}

function webgpuPrecheck(): DeviceSkip | undefined {
  if (process.platform !== 'linux') return undefined;
  const loader = vulkanLoaderPresent();
  if (loader.ok) return undefined;
  return skip(
    'webgpu',
    'vulkan_loader_missing',
    `WebGPU needs the Vulkan loader ${VULKAN_LOADER}, which cannot be loaded (${loader.why}); install it (Debian/Ubuntu: libvulkan1) and ${ICD_HOWTO}`,
  );
}

/** The device-level failure of creating a session on a GPU, or undefined when the failure is the model's. */
function gpuFailure(device: GpuDevice, cause: unknown): DeviceSkip | undefined {
  const msg = (cause as Error).message.trim();
  if (device === 'cuda') {
    if (!/cuda|cudnn|cublas|provider|shared library|GPU/i.test(msg)) return undefined;
    return skip('cuda', 'cuda_unusable', `onnxruntime-node cannot create the CUDA execution provider (${msg}); ${CUDA_HOWTO}`);
  }
  if (/adapter/i.test(msg)) {
    return skip('webgpu', 'webgpu_no_adapter', `no WebGPU adapter: Dawn found no usable GPU through the Vulkan loader (${msg}); ${ICD_HOWTO}`);
  }
  if (!/webgpu|dawn|vulkan|device lost|wgpu/i.test(msg)) return undefined;
  return skip('webgpu', 'webgpu_unusable', `onnxruntime-node cannot run the WebGPU execution provider (${msg})`);
}

function deviceError(s: DeviceSkip, cause?: unknown): JudgeModelError {
  return new JudgeModelError(JudgeModelErrorCode.DeviceUnavailable, `device "${s.device}" (${s.code}): ${s.reason}; or set device to "cpu" or "auto"`, {
    ...(cause !== undefined ? { cause } : {}),
  });
}

function options(device: ResolvedDevice, s: SessionSettings): ort.InferenceSession.SessionOptions {
  const gpu = isGpu(device);
  return {
    executionProviders: [device],
    intraOpNumThreads: gpu ? (s.gpuThreads ?? s.threads) : s.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    // On a GPU the CPU threads wait on the device most of the time: waiting by spinning would
    // burn the cores the prepare workers need.
    ...(gpu ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
  };
}

async function create(file: string, device: ResolvedDevice, s: SessionSettings): Promise<ort.InferenceSession> {
  try {
    return await ort.InferenceSession.create(file, options(device, s));
  } catch (cause) {
    const gpu = isGpu(device) ? gpuFailure(device, cause) : undefined;
    if (gpu !== undefined) throw deviceError(gpu, cause);
    throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `onnxruntime cannot load ${file} on ${device}: ${(cause as Error).message}`, { cause });
  }
}

export interface OpenedSessions {
  device: ResolvedDevice;
  /** With `auto`: the devices tried before the one used, and why each was passed over. */
  passedOver: DeviceSkip[];
  sessions: ort.InferenceSession[];
}

async function openAll(files: readonly string[], device: ResolvedDevice, s: SessionSettings): Promise<ort.InferenceSession[]> {
  const sessions: ort.InferenceSession[] = [];
  try {
    for (const f of files) sessions.push(await create(f, device, s));
  } catch (e) {
    await Promise.all(sessions.map((x) => x.release()));
    throw e;
  }
  return sessions;
}

function precheck(device: GpuDevice): DeviceSkip | undefined {
  return device === 'cuda' ? cudaPrecheck() : webgpuPrecheck();
}

/**
 * Opens one session per file on `device`. With `auto`, CUDA, WebGPU and the CPU are tried in
 * that order; a device is passed over only for a device-level reason (`passedOver` says which),
 * never because the model itself is bad.
 * @throws JudgeModelError JUDGE_MODEL_DEVICE_UNAVAILABLE (cuda, webgpu) or JUDGE_MODEL_INVALID_MODEL.
 */
export async function openSessions(files: readonly string[], device: JudgeDevice, s: SessionSettings): Promise<OpenedSessions> {
  if (device !== 'auto') {
    const pre = isGpu(device) ? precheck(device) : undefined;
    if (pre !== undefined) throw deviceError(pre);
    return { device, passedOver: [], sessions: await openAll(files, device, s) };
  }
  const passedOver: DeviceSkip[] = [];
  for (const d of AUTO_ORDER) {
    if (!isGpu(d)) return { device: d, passedOver, sessions: await openAll(files, d, s) };
    const pre = precheck(d);
    if (pre !== undefined) {
      passedOver.push(pre);
      continue;
    }
    try {
      return { device: d, passedOver, sessions: await openAll(files, d, s) };
    } catch (e) {
      const why = isJudgeModelError(e, JudgeModelErrorCode.DeviceUnavailable) ? gpuFailure(d, e.cause) : undefined;
      if (why === undefined) throw e;
      passedOver.push(why);
    }
  }
  throw new JudgeModelError(JudgeModelErrorCode.DeviceUnavailable, 'no device could be used');
}

/**
 * Whether `device` can be used here, without loading a model: the prechecks, then a session on a
 * one-node graph. For tests and the GPU check that run only where a device exists.
 */
export async function probeDevice(device: GpuDevice, probeGraph: Uint8Array): Promise<{ ok: true } | { ok: false; skip: DeviceSkip }> {
  const pre = precheck(device);
  if (pre !== undefined) return { ok: false, skip: pre };
  try {
    const session = await ort.InferenceSession.create(probeGraph, options(device, { threads: 1 }));
    await session.release();
    return { ok: true };
  } catch (e) {
    const why = gpuFailure(device, e) ?? skip(device, device === 'cuda' ? 'cuda_unusable' : 'webgpu_unusable', (e as Error).message.trim());
    return { ok: false, skip: why };
  }
}

/** A one-line account of how the device was chosen, for logs and CLI output. */
export function describeChoice(requested: JudgeDevice, device: ResolvedDevice, passedOver: readonly DeviceSkip[]): string {
  if (passedOver.length === 0) return requested === 'auto' ? `${device} (auto: the first device tried)` : device;
  return `${device} (auto passed over ${passedOver.map((p) => `${p.device}: ${p.code}`).join('; ')})`;
}

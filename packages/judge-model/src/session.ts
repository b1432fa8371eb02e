// onnxruntime-node sessions on the requested device. `cuda` uses the CUDA execution provider only
// and fails with an error naming what is missing; `auto` tries CUDA and falls back to the CPU
// explicitly (a provider list ['cuda', 'cpu'] does not fall back in onnxruntime-node).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { JudgeModelError, JudgeModelErrorCode } from './errors.js';

export type JudgeDevice = 'auto' | 'cuda' | 'cpu';
export type ResolvedDevice = 'cuda' | 'cpu';

export interface SessionSettings {
  /** onnxruntime intra-op threads per session. */
  threads: number;
}

/** Folder of the native binding, where the CUDA provider libraries have to be. */
function ortBinDir(): string {
  const main = createRequire(import.meta.url).resolve('onnxruntime-node');
  return path.join(path.dirname(main), '..', 'bin', 'napi-v6', process.platform, process.arch);
}

const CUDA_LIBS = ['libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so'];

function cudaError(cause: unknown): JudgeModelError {
  const dir = ortBinDir();
  const missing = process.platform === 'linux' ? CUDA_LIBS.filter((f) => !fs.existsSync(path.join(dir, f))) : [];
  const why = missing.length > 0 ? `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing from ${dir}` : 'the provider libraries are present but could not be loaded';
  return new JudgeModelError(
    JudgeModelErrorCode.DeviceUnavailable,
    `device "cuda": onnxruntime-node cannot create the CUDA execution provider (${(cause as Error).message.trim()}); ${why}. ` +
      'Install the provider with `npm rebuild onnxruntime-node --onnxruntime-node-install=cuda12` ' +
      '(or ONNXRUNTIME_NODE_INSTALL=cuda12 during npm install), with the CUDA 12 and cuDNN 9 runtime libraries on LD_LIBRARY_PATH and an NVIDIA GPU visible; ' +
      'or set device to "cpu" or "auto"',
    { cause },
  );
}

function options(device: ResolvedDevice, s: SessionSettings): ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [device],
    intraOpNumThreads: s.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  };
}

async function create(file: string, device: ResolvedDevice, s: SessionSettings): Promise<ort.InferenceSession> {
  try {
    return await ort.InferenceSession.create(file, options(device, s));
  } catch (cause) {
    if (device === 'cuda' && /cuda|provider|shared library/i.test((cause as Error).message)) throw cudaError(cause);
    throw new JudgeModelError(JudgeModelErrorCode.InvalidModel, `onnxruntime cannot load ${file}: ${(cause as Error).message}`, { cause });
  }
}

export interface OpenedSessions {
  device: ResolvedDevice;
  /** Set when `auto` fell back to the CPU: why CUDA was not usable. */
  fallback?: string;
  sessions: ort.InferenceSession[];
}

/**
 * Opens one session per file on `device`. With `auto` the first file is tried on CUDA; when that
 * fails every file is opened on the CPU and `fallback` says why.
 * @throws JudgeModelError JUDGE_MODEL_DEVICE_UNAVAILABLE (cuda) or JUDGE_MODEL_INVALID_MODEL.
 */
export async function openSessions(files: readonly string[], device: JudgeDevice, s: SessionSettings): Promise<OpenedSessions> {
  let resolved: ResolvedDevice = device === 'cpu' ? 'cpu' : 'cuda';
  let fallback: string | undefined;
  const sessions: ort.InferenceSession[] = [];
  for (const file of files) {
    try {
      sessions.push(await create(file, resolved, s));
    } catch (e) {
      if (!(device === 'auto' && resolved === 'cuda' && e instanceof JudgeModelError && e.code === JudgeModelErrorCode.DeviceUnavailable)) {
        await Promise.all(sessions.map((x) => x.release()));
        throw e;
      }
      await Promise.all(sessions.splice(0).map((x) => x.release()));
      resolved = 'cpu';
      fallback = e.message;
      try {
        for (const f of files) sessions.push(await create(f, 'cpu', s));
      } catch (cpuError) {
        await Promise.all(sessions.map((x) => x.release()));
        throw cpuError;
      }
      break;
    }
  }
  return { device: resolved, ...(fallback !== undefined ? { fallback } : {}), sessions };
}

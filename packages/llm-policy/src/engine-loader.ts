// Makes a serving engine load a published policy version through the engine's own HTTP API
// (docs/design.md §6, docs/trainer.md), once per version, so that actors naming the version's
// `serve_name` never reach an engine that lacks it. Intended caller: the learner, after the
// trainer answered and before it moves the weights pointer (`await loader.loadVersion(artifact)`).
//
//   kind           vLLM                                              SGLang
//   lora-adapter   POST /v1/load_lora_adapter {lora_name, lora_path}  POST /load_lora_adapter {lora_name, lora_path}
//                  (a 400 "already been loaded" counts as loaded)
//   full-weights   refused: vLLM's HTTP server has no "load weights   POST /update_weights_from_disk
//                  from a folder" call (see docs/trainer.md)           {model_path, weight_version}
//
// Concurrent and repeated calls for one version share one load; a failed load is forgotten so the
// next call tries again. Adapters older than the newest `keepAdapters` are unloaded
// (vLLM /v1/unload_lora_adapter, SGLang /unload_lora_adapter); an unload that fails is logged.
import { fileURLToPath } from 'node:url';
import { OwrlError, Secret, silentLogger, type Logger } from '@owrl/core';
import type { PolicyArtifact } from '@owrl/proto';

export const EngineLoadErrorCode = {
  /** The engine cannot load this kind of artifact through its API (onnx-pointer; full weights on vLLM). */
  Unsupported: 'ENGINE_LOAD_UNSUPPORTED',
  /** The artifact cannot be handed to the engine (no version, a URI that is not a local folder). */
  BadArtifact: 'ENGINE_LOAD_BAD_ARTIFACT',
  /** The engine refused or failed the load, or could not be reached. */
  Failed: 'ENGINE_LOAD_FAILED',
} as const;
export type EngineLoadErrorCode = (typeof EngineLoadErrorCode)[keyof typeof EngineLoadErrorCode];

export class EngineLoadError extends OwrlError<EngineLoadErrorCode> {
  override readonly name = 'EngineLoadError';
}

export function isEngineLoadError(e: unknown, code?: EngineLoadErrorCode): e is EngineLoadError {
  return e instanceof EngineLoadError && (code === undefined || e.code === code);
}

export type WeightEngine = 'vllm' | 'sglang';

export interface EngineWeightLoaderOptions {
  engine: WeightEngine;
  /** The engine's address: its origin or its OpenAI API base (a trailing /v1 is dropped). */
  baseUrl: string;
  apiKey?: Secret | string;
  /** LoRA adapters kept loaded, newest first, the one just loaded included (default 3, at least 1). */
  keepAdapters?: number;
  /** Timeout of one load call, ms (default 600 000: a full-weights load takes minutes). */
  timeoutMs?: number;
  /** Attempts after the first when the engine cannot be reached or answers 5xx (default 2). */
  retries?: number;
  backoffMs?: number;
  /** The folder path the engine reads for an artifact URI (default: file:// URL → path, an absolute path as is). */
  enginePath?: (uri: string) => string;
  logger?: Logger;
}

/** What a load made the engine serve. */
export interface LoadedVersion {
  version: bigint;
  kind: string;
  /** The model name requests for this version send: the adapter name, or the artifact's serve_name ('' = the served model as configured). */
  serveName: string;
  /** True when the engine already had it (e.g. loaded before the learner restarted). */
  alreadyLoaded: boolean;
}

/** The adapter name of a version when the artifact gives none. */
export function defaultServeName(version: bigint): string {
  return `owrl-v${version}`;
}

function defaultEnginePath(uri: string): string {
  if (uri.startsWith('file://')) return fileURLToPath(uri);
  if (uri.startsWith('/')) return uri;
  throw new EngineLoadError(
    EngineLoadErrorCode.BadArtifact,
    `artifact uri ${JSON.stringify(uri)} is not a folder the engine can read: give a file:// URL or an absolute path on a volume the engine mounts`,
  );
}

export class EngineWeightLoader {
  readonly engine: WeightEngine;
  readonly origin: string;
  readonly keepAdapters: number;
  private readonly apiKey: Secret;
  private readonly log: Logger;
  private readonly loads = new Map<bigint, Promise<LoadedVersion>>();
  private chain: Promise<unknown> = Promise.resolve();
  /** Adapters this loader made the engine hold, oldest first. */
  private readonly adapters: Array<{ version: bigint; name: string }> = [];
  private fullVersion = -1n;
  /** Engine calls made (load and unload), for metrics and tests. */
  calls = 0;

  constructor(private readonly opts: EngineWeightLoaderOptions) {
    if (opts.engine !== 'vllm' && opts.engine !== 'sglang') {
      throw new EngineLoadError(EngineLoadErrorCode.Unsupported, `engine ${JSON.stringify(opts.engine)} has no weight-loading API owrl knows; use vllm or sglang`);
    }
    let u: URL;
    try {
      u = new URL(opts.baseUrl);
    } catch {
      throw new EngineLoadError(EngineLoadErrorCode.BadArtifact, `engine base URL ${JSON.stringify(opts.baseUrl)} is not a URL`);
    }
    this.engine = opts.engine;
    this.origin = `${u.origin}${u.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
    this.keepAdapters = opts.keepAdapters ?? 3;
    if (!Number.isInteger(this.keepAdapters) || this.keepAdapters < 1) {
      throw new EngineLoadError(EngineLoadErrorCode.BadArtifact, `keepAdapters is ${this.keepAdapters}; keep at least the adapter just loaded (1)`);
    }
    this.apiKey = typeof opts.apiKey === 'string' ? new Secret(opts.apiKey) : (opts.apiKey ?? new Secret(''));
    this.log = opts.logger ?? silentLogger;
  }

  /** Versions whose load completed, ascending. */
  loadedVersions(): bigint[] {
    return this.adapters.map((a) => a.version);
  }

  /**
   * Makes the engine serve `artifact`'s version; resolves once it does. Repeated and concurrent
   * calls for one version share a single load.
   * @throws EngineLoadError naming the engine, the call and its answer.
   */
  loadVersion(artifact: PolicyArtifact): Promise<LoadedVersion> {
    const running = this.loads.get(artifact.version);
    if (running) return running;
    const p = this.chain.then(() => this.load(artifact));
    this.chain = p.catch(() => undefined);
    this.loads.set(artifact.version, p);
    p.catch(() => this.loads.delete(artifact.version));
    return p;
  }

  private async load(a: PolicyArtifact): Promise<LoadedVersion> {
    const where = `${this.engine} at ${this.origin}`;
    if (a.kind === 'lora-adapter') {
      const name = a.serveName || defaultServeName(a.version);
      const dir = (this.opts.enginePath ?? defaultEnginePath)(a.uri);
      const path = this.engine === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter';
      const r = await this.post(path, { lora_name: name, lora_path: dir });
      const already = !r.ok && /already (been )?loaded|already exists/i.test(r.text);
      if (!r.ok && !already) throw this.failed(path, a, r);
      if (this.engine === 'sglang' && r.ok && /"success"\s*:\s*false/.test(r.text)) throw this.failed(path, a, r);
      this.adapters.push({ version: a.version, name });
      this.log.info({ engine: this.engine, version: Number(a.version), adapter: name, path: dir, alreadyLoaded: already }, 'LoRA adapter loaded by the serving engine');
      await this.retire();
      return { version: a.version, kind: a.kind, serveName: name, alreadyLoaded: already };
    }
    if (a.kind === 'full-weights') {
      if (this.engine === 'vllm') {
        throw new EngineLoadError(
          EngineLoadErrorCode.Unsupported,
          `version ${a.version} is full weights, and ${where} has no HTTP call that loads weights from a folder: train a LoRA adapter, serve with SGLang, or have the trainer push the weights into vLLM itself (its weight-transfer API) and publish a lora-adapter or restart vLLM on the new folder (docs/trainer.md)`,
        );
      }
      if (a.version <= this.fullVersion) {
        throw new EngineLoadError(EngineLoadErrorCode.BadArtifact, `version ${a.version} is not newer than version ${this.fullVersion} the engine already serves; full weights only move forward`);
      }
      const dir = (this.opts.enginePath ?? defaultEnginePath)(a.uri);
      const r = await this.post('/update_weights_from_disk', { model_path: dir, weight_version: `v${a.version}` });
      if (!r.ok || /"success"\s*:\s*false/.test(r.text)) throw this.failed('/update_weights_from_disk', a, r);
      this.fullVersion = a.version;
      this.log.info({ engine: this.engine, version: Number(a.version), path: dir }, 'full weights loaded by the serving engine');
      return { version: a.version, kind: a.kind, serveName: a.serveName, alreadyLoaded: false };
    }
    throw new EngineLoadError(
      EngineLoadErrorCode.Unsupported,
      `version ${a.version} is of kind ${JSON.stringify(a.kind)}; a serving engine loads lora-adapter or full-weights (onnx-pointer runs inside the actors)`,
    );
  }

  /** Unloads the adapters beyond the newest `keepAdapters`. */
  private async retire(): Promise<void> {
    while (this.adapters.length > this.keepAdapters) {
      const old = this.adapters.shift();
      if (!old) break;
      this.loads.delete(old.version);
      const path = this.engine === 'vllm' ? '/v1/unload_lora_adapter' : '/unload_lora_adapter';
      try {
        const r = await this.post(path, { lora_name: old.name });
        if (!r.ok) this.log.warn({ engine: this.engine, adapter: old.name, status: r.status, answer: r.text.slice(0, 300) }, 'the engine refused to unload an old LoRA adapter');
        else this.log.info({ engine: this.engine, adapter: old.name, version: Number(old.version) }, 'old LoRA adapter unloaded');
      } catch (e) {
        this.log.warn({ engine: this.engine, adapter: old.name, err: e }, 'could not unload an old LoRA adapter');
      }
    }
  }

  private failed(path: string, a: PolicyArtifact, r: { status: number; text: string }): EngineLoadError {
    return new EngineLoadError(
      EngineLoadErrorCode.Failed,
      `${this.engine} at ${this.origin} refused POST ${path} for version ${a.version} (${a.uri}): HTTP ${r.status} ${r.text.slice(0, 500)}`,
    );
  }

  private async post(path: string, body: Record<string, unknown>): Promise<{ ok: boolean; status: number; text: string }> {
    const retries = this.opts.retries ?? 2;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.apiKey.isSet) headers['authorization'] = `Bearer ${this.apiKey.reveal()}`;
    for (let attempt = 0; ; attempt++) {
      this.calls++;
      try {
        const res = await fetch(`${this.origin}${path}`, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(this.opts.timeoutMs ?? 600_000),
        });
        const text = await res.text();
        if (res.status >= 500 && attempt < retries) {
          this.log.warn({ engine: this.engine, path, status: res.status, attempt }, 'engine weight call failed; retrying');
        } else return { ok: res.ok, status: res.status, text };
      } catch (e) {
        if (attempt >= retries) {
          throw new EngineLoadError(EngineLoadErrorCode.Failed, `${this.engine} at ${this.origin} did not answer POST ${path} after ${attempt + 1} attempts: ${(e as Error).message}`, { cause: e });
        }
        this.log.warn({ engine: this.engine, path, attempt, err: e }, 'engine weight call failed; retrying');
      }
      await new Promise((r) => setTimeout(r, (this.opts.backoffMs ?? 500) * 2 ** attempt));
    }
  }
}

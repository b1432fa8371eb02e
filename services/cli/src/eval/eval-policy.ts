// What `owrl eval --policy` names, turned into the weights pointer the actors load: an ONNX
// pointer artifact file (checked to be one), `uniform` (the untrained built-in policy, written to
// the eval folder), or `openai` (the actors' OpenAI-compatible backend, configured by the
// OWRL_POLICY_* settings, checked here before anything starts).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openAIPolicyConfigFromEnv } from '@owrl/llm-policy';
import { DEFAULT_DIM, initialModel, POLICY_KIND, readOnnxWeights } from '@owrl/policy';
import { UsageError } from '../usage.js';

export interface EvalPolicy {
  /** Identity for the manifest: the artifact's sha256, or `openai:<model>@<base URL>`. */
  identity: string;
  /** For the report. */
  describe: string;
  kind: string;
  /** Artifact bytes to write into the eval folder before the pointer is published (uniform). */
  bytes?: Uint8Array;
  /** The artifact file (pointer kinds). */
  file?: string;
  sha256: string;
  /** Settings every actor gets (OWRL_POLICY). */
  actorEnv: Record<string, string>;
}

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** @throws UsageError naming the value when it is neither a readable pointer artifact, `uniform` nor `openai`. */
export function resolveEvalPolicy(value: string | undefined, env: NodeJS.ProcessEnv): EvalPolicy {
  const v = value ?? 'uniform';
  if (v === 'openai') {
    let cfg;
    try {
      cfg = openAIPolicyConfigFromEnv(env);
    } catch (e) {
      throw new UsageError(`--policy openai: ${(e as Error).message}`, { cause: e });
    }
    const identity = `openai:${cfg.model}@${cfg.baseUrl}`;
    return { identity, describe: identity, kind: 'full-weights', sha256: '', actorEnv: { OWRL_POLICY: 'openai' } };
  }
  if (v === 'uniform') {
    const bytes = initialModel({ dim: DEFAULT_DIM }).toOnnx();
    return { identity: sha256(bytes), describe: 'uniform (untrained built-in pointer policy)', kind: POLICY_KIND, bytes, sha256: sha256(bytes), actorEnv: { OWRL_POLICY: 'pointer' } };
  }
  const file = path.resolve(v);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(fs.readFileSync(file));
  } catch (e) {
    throw new UsageError(`--policy ${JSON.stringify(v)}: cannot read it (${(e as Error).message}); give an ONNX pointer artifact file, 'uniform' or 'openai'`, { cause: e });
  }
  try {
    readOnnxWeights(bytes);
  } catch (e) {
    throw new UsageError(`--policy ${JSON.stringify(v)} is not an owrl pointer policy artifact: ${(e as Error).message}`, { cause: e });
  }
  return { identity: sha256(bytes), describe: `${file} (sha256 ${sha256(bytes).slice(0, 12)})`, kind: POLICY_KIND, file, sha256: sha256(bytes), actorEnv: { OWRL_POLICY: 'pointer' } };
}

/** The pointer's URI: the artifact file (written to `dir` first for `uniform`); empty for openai. */
export function materialize(p: EvalPolicy, dir: string): { uri: string; bytes: number } {
  if (p.bytes) {
    const f = path.join(dir, 'policy-uniform.onnx');
    fs.writeFileSync(f, p.bytes);
    return { uri: pathToFileURL(f).href, bytes: p.bytes.length };
  }
  if (p.file) return { uri: pathToFileURL(p.file).href, bytes: fs.statSync(p.file).size };
  return { uri: '', bytes: 0 };
}

// Preflight: the policy. The pointer policy needs nothing outside owrl; a model behind an endpoint
// is probed with one tiny chat request sent as the policy sends its steps (probeEngine): it must
// serve the configured model and answer with completion token ids, prompt token ids and
// log-probs, and its adapter-loading call must be on when the actors load versions into it.
import { envSecret } from '@owrl/core';
import { DEFAULT_SAMPLER, openAIPolicyConfigFromEnv, probeEngine } from '@owrl/llm-policy';
import { why, type CheckLine, type PreflightContext } from './preflight-check.js';

export async function checkPolicy(ctx: PreflightContext): Promise<CheckLine[]> {
  const s = ctx.settings;
  if ((s['OWRL_POLICY'] ?? 'pointer') === 'pointer') {
    return [{ name: 'policy', ok: true, detail: 'the built-in pointer policy (ONNX, run by the actors; no model server)' }];
  }
  let cfg;
  try {
    cfg = openAIPolicyConfigFromEnv(s);
  } catch (e) {
    return [{ name: 'policy', ok: false, detail: why(e), fix: 'correct the policy section of the run file' }];
  }
  const engine = cfg.engine ?? 'vllm';
  const canLoad = engine === 'vllm' || engine === 'sglang';
  const d = DEFAULT_SAMPLER;
  const sampler = {
    temperature: cfg.temperature ?? d.temperature,
    topP: cfg.topP ?? d.topP,
    topK: cfg.topK ?? d.topK,
    minP: cfg.minP ?? d.minP,
    repetitionPenalty: cfg.repetitionPenalty ?? d.repetitionPenalty,
    presencePenalty: cfg.presencePenalty ?? d.presencePenalty,
    frequencyPenalty: cfg.frequencyPenalty ?? d.frequencyPenalty,
  };
  const adapters = canLoad && (s['OWRL_POLICY_LOAD_WEIGHTS'] ?? 'true') !== 'false' && (s['OWRL_TRAINER'] ?? 'inprocess') !== 'inprocess';
  try {
    const r = await probeEngine({
      baseUrl: cfg.baseUrl,
      model: cfg.model,
      engine,
      apiKey: envSecret('OWRL_POLICY_API_KEY', s),
      timeoutMs: 30_000,
      signal: ctx.signal,
      adapters,
      render: { sampler },
      ...(cfg.logprobMode !== undefined ? { logprobMode: cfg.logprobMode } : {}),
    });
    return r.checks.map((c) => ({ name: `policy.${c.name}`, ok: c.ok, detail: c.detail, ...(c.fix !== undefined ? { fix: c.fix } : {}) }));
  } catch (e) {
    return [{ name: 'policy', ok: false, detail: why(e), fix: 'correct policy.base_url' }];
  }
}

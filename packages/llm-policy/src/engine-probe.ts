// Checks a serving engine before a run: one tiny chat request sent exactly as the policy sends
// its steps (the same sampler fields, token-id and log-prob asks and adapter naming), so what a
// run would hit at its first step shows up here first, with what to change. Checked: the server
// answers and serves the model (GET /models), the chat request is accepted, the answer carries
// completion ids, prompt ids and one log-prob per completion token (trace-checks.ts, the same
// detection the policy stops a run with), and, for runs that load adapters, that the engine's
// adapter-loading API is on. The adapter API is probed by unloading an adapter name no run uses:
// vLLM without VLLM_ALLOW_RUNTIME_LORA_UPDATING has no such route (404 "Not Found"), SGLang
// without --enable-lora answers "LoRA is not enabled"; with them on, the name is "not found" and
// nothing changes on the engine.
import { Secret } from '@owrl/core';
import type { PolicyInput } from '@owrl/policy';
import { servedNameProblem } from './adapter-naming.js';
import { firstChoice, isObject, type ServingEngine } from './chat-types.js';
import { LlmPolicyError, LlmPolicyErrorCode } from './errors.js';
import { DEFAULT_RENDER_OPTIONS, renderChatRequest, type RenderOptions } from './prompt-render.js';
import { defaultLogprobMode, samplerProblem, type LogprobMode } from './sampling.js';
import { errorMessage } from './server-errors.js';
import { traceChecks, type EngineCheck } from './trace-checks.js';

export type { EngineCheck } from './trace-checks.js';

export interface EngineProbeResult {
  /** Every check passed. */
  ok: boolean;
  engine: ServingEngine;
  checks: EngineCheck[];
}

export interface EngineProbeOptions {
  /** The OpenAI API base, e.g. http://vllm:8000/v1. */
  baseUrl: string;
  /** The served model name (the base of the adapters). */
  model: string;
  engine: ServingEngine;
  apiKey?: Secret | string;
  /** Deadline of each HTTP call, ms (default 30 000: the first request may compile kernels). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** An adapter the engine has loaded, named in the request the way the policy names it. */
  adapter?: string;
  /** Whether the run loads adapters into the engine (default: true for vllm and sglang). */
  adapters?: boolean;
  /** The policy's rendering and sampler settings (default: the policy's defaults); model, engine and adapter come from above. */
  render?: Partial<Omit<RenderOptions, 'model' | 'engine' | 'adapter'>>;
  /** The log-probs the engine reports (default: the engine's default, sampling.ts). */
  logprobMode?: LogprobMode;
}

/** A name no run loads: unloading it changes nothing on the engine. */
const PROBE_ADAPTER = 'owrl-probe-absent-adapter';

/** The smallest step a policy decides: a blank page, no screenshot, a one-word task. */
const PROBE_INPUT: PolicyInput = {
  instruction: 'Answer with the single word ok by calling done.',
  observation: {
    url: 'about:blank',
    title: '',
    tabs: [{ index: 0, url: 'about:blank', title: '', active: true }],
    elements: [],
    texts: [],
    scrollY: 0,
    scrollMaxY: 0,
    viewport: { width: 1280, height: 800 },
    lastEffects: [],
    screenshots: [],
  },
  history: [],
  step: 0,
  maxSteps: 1,
};

interface HttpAnswer {
  status: number;
  body: unknown;
  text: string;
}

/**
 * Probes the engine at `opts.baseUrl`. Never throws for what the engine answers (or does not):
 * every finding is a check.
 * @throws LlmPolicyError LLM_POLICY_INVALID_CONFIG when `baseUrl` is not an http(s) URL.
 */
export async function probeEngine(opts: EngineProbeOptions): Promise<EngineProbeResult> {
  let base: URL;
  try {
    base = new URL(opts.baseUrl);
  } catch {
    throw new LlmPolicyError(LlmPolicyErrorCode.InvalidConfig, `baseUrl ${JSON.stringify(opts.baseUrl)} is not a URL (e.g. http://vllm:8000/v1)`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new LlmPolicyError(LlmPolicyErrorCode.InvalidConfig, `baseUrl ${JSON.stringify(opts.baseUrl)} must be http(s)`);
  const api = opts.baseUrl.replace(/\/+$/, '');
  const origin = `${base.origin}${base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
  const key = typeof opts.apiKey === 'string' ? new Secret(opts.apiKey) : opts.apiKey;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const { engine } = opts;
  const checks: EngineCheck[] = [];
  const done = (): EngineProbeResult => ({ ok: checks.every((c) => c.ok), engine, checks });

  const call = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<HttpAnswer | { error: string }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (key?.isSet) headers['authorization'] = `Bearer ${key.reveal()}`;
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const res = await fetch(url, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal: opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed, text };
    } catch (e) {
      const cause = (e as { cause?: { code?: unknown } }).cause;
      const why = deadline.aborted ? `no answer within ${timeoutMs} ms` : typeof cause?.code === 'string' ? cause.code : (e as Error).message;
      return { error: `${method} ${url}: ${why}` };
    }
  };

  const nameProblem = servedNameProblem(engine, opts.model);
  const mode = opts.logprobMode ?? defaultLogprobMode(engine);
  const render: RenderOptions = { ...DEFAULT_RENDER_OPTIONS, maxTokens: 16, ...opts.render, screenshots: 0, model: opts.model, engine, ...(opts.adapter ? { adapter: opts.adapter } : {}) };
  const samplerIssue = samplerProblem(render.sampler, engine, mode);
  checks.push(
    nameProblem || samplerIssue
      ? { name: 'settings', ok: false, detail: (nameProblem ?? samplerIssue) as string, fix: nameProblem ? 'serve the model under a name without a colon (--served-model-name)' : 'change the sampler settings or the engine log-prob mode' }
      : { name: 'settings', ok: true, detail: `sampler and log-prob mode ${mode} fit ${engine}` },
  );

  // 1. the server answers and serves the model
  const models = await call('GET', `${api}/models`);
  if ('error' in models) {
    checks.push({ name: 'server', ok: false, detail: `the engine did not answer: ${models.error}`, fix: `start the engine, or correct the base URL (${api})` });
    return done();
  }
  if (models.status === 401 || models.status === 403) {
    checks.push({ name: 'server', ok: false, detail: `GET /models answered ${models.status}: the API key was refused`, fix: 'give the key the engine was started with (--api-key) as the policy API key' });
    return done();
  }
  const ids = isObject(models.body) && Array.isArray(models.body['data']) ? (models.body['data'] as unknown[]).flatMap((m) => (isObject(m) && typeof m['id'] === 'string' ? [m['id']] : [])) : [];
  if (models.status !== 200 || ids.length === 0) {
    checks.push({ name: 'server', ok: false, detail: `GET /models answered ${models.status} without a model list: ${models.text.slice(0, 200)}`, fix: 'point the base URL at the OpenAI API of the engine (ending in /v1)' });
    return done();
  }
  checks.push({ name: 'server', ok: true, detail: `GET /models lists ${ids.length} model(s)` });
  checks.push(
    ids.includes(opts.model)
      ? { name: 'model', ok: true, detail: `${JSON.stringify(opts.model)} is served` }
      : { name: 'model', ok: false, detail: `${JSON.stringify(opts.model)} is not among the served models ${JSON.stringify(ids.slice(0, 10))}`, fix: `name the model as the engine serves it, or start the engine with --served-model-name ${opts.model}` },
  );

  // 2. one chat request as the policy sends it
  const req = renderChatRequest(PROBE_INPUT, render, 1);
  const chat = await call('POST', `${api}/chat/completions`, req);
  if ('error' in chat) {
    checks.push({ name: 'chat', ok: false, detail: `the chat request got no answer: ${chat.error}`, fix: 'check the engine log: the first request can take long while kernels compile (raise the timeout)' });
  } else if (chat.status !== 200) {
    const msg = errorMessage(chat.body, chat.text);
    checks.push({ name: 'chat', ok: false, detail: `POST /chat/completions answered ${chat.status}: ${msg}`, fix: chatFix(engine, msg) });
  } else {
    const choice = firstChoice(chat.body);
    if (!choice) checks.push({ name: 'chat', ok: false, detail: `POST /chat/completions answered 200 without a choice: ${chat.text.slice(0, 200)}` });
    else {
      checks.push({ name: 'chat', ok: true, detail: `POST /chat/completions answered (model ${JSON.stringify(req.model)}${req.lora_path ? `, lora_path ${JSON.stringify(req.lora_path)}` : ''})` });
      checks.push(...traceChecks(engine, chat.body, choice));
    }
  }

  // 3. the adapter-loading API, when the run loads adapters
  if (engine !== 'openai' && (opts.adapters ?? true)) checks.push(await adapterApiCheck(engine, origin, call));
  return done();
}

/** What to change for a refused chat request, from the engine's message. */
function chatFix(engine: ServingEngine, msg: string): string {
  if (/auto.{0,3} tool choice requires --enable-auto-tool-choice/i.test(msg)) return 'start vLLM with --enable-auto-tool-choice --tool-call-parser hermes (Qwen), or send tools in the prompt (tools in the prompt text)';
  if (/LoRA is not enabled/i.test(msg)) return 'start SGLang with --enable-lora --max-lora-rank <r> --lora-target-modules all';
  if (/never been loaded|does not exist|not found/i.test(msg)) return 'load the adapter first (the learner or actor does this per version), or probe without one';
  return engine === 'openai' ? 'check the model name and the API key' : 'the engine refused the request the policy sends: see its message';
}

async function adapterApiCheck(
  engine: 'vllm' | 'sglang',
  origin: string,
  call: (method: 'GET' | 'POST', url: string, body?: unknown) => Promise<HttpAnswer | { error: string }>,
): Promise<EngineCheck> {
  const path = engine === 'vllm' ? '/v1/unload_lora_adapter' : '/unload_lora_adapter';
  const r = await call('POST', `${origin}${path}`, { lora_name: PROBE_ADAPTER });
  if ('error' in r) return { name: 'adapter_api', ok: false, detail: `POST ${path}: ${r.error}` };
  const text = r.text;
  if (engine === 'vllm') {
    if (/cannot be found|not found in|does not exist/i.test(text) && !/^\s*\{\s*"detail"\s*:\s*"Not Found"/i.test(text)) {
      return { name: 'adapter_api', ok: true, detail: `POST ${path} is served (runtime LoRA loading on)` };
    }
    return {
      name: 'adapter_api',
      ok: false,
      detail: `POST ${path} answered ${r.status} ${text.slice(0, 200)}: runtime LoRA loading is off`,
      fix: 'start vLLM with VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora --max-lora-rank <r> (or turn adapter loading off when something else loads the versions)',
    };
  }
  if (/LoRA is not enabled/i.test(text)) {
    return {
      name: 'adapter_api',
      ok: false,
      detail: `POST ${path} answered: LoRA is not enabled`,
      fix: 'start SGLang with --enable-lora --max-lora-rank <r> --lora-target-modules all (its start-up check wants both without --lora-paths)',
    };
  }
  if (/does not exist/i.test(text)) return { name: 'adapter_api', ok: true, detail: `POST ${path} is served with LoRA enabled` };
  return { name: 'adapter_api', ok: false, detail: `POST ${path} answered ${r.status} ${text.slice(0, 200)}`, fix: 'run an SGLang release with /load_lora_adapter and /unload_lora_adapter' };
}

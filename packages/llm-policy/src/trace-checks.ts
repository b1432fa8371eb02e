// Whether an engine's answer carries what a token-level trace needs: completion token ids, prompt
// token ids and one behaviour log-prob per completion token. Each missing part becomes a failed
// check that names the field and the engine release or flag that provides it, so the policy (at
// the first step) and the engine probe (before a run) stop with the same explanation. Pure logic.
import type { ServingEngine } from './chat-types.js';
import { readTokens } from './token-trace.js';

/** One thing checked about a serving engine; `fix` says what to change when it failed. */
export interface EngineCheck {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

const FIX: Record<ServingEngine, Record<'completion' | 'prompt' | 'logprobs', string>> = {
  vllm: {
    completion:
      'run vLLM 0.10.2 or later, which answers `return_token_ids: true` with `token_ids` on the choice (vllm-project/vllm#22587; with a reasoning parser on, a release with vllm-project/vllm#28256)',
    prompt: 'run vLLM 0.10.2 or later, which answers `return_token_ids: true` with `prompt_token_ids` on the response (vllm-project/vllm#22587)',
    logprobs: 'vLLM must answer `logprobs: true` with `logprobs.content`, one entry per completion token: do not start it with --max-logprobs below 0',
  },
  sglang: {
    completion:
      'run an SGLang release whose /v1/chat/completions answers `return_token_ids: true` with `token_ids` on the choice (sgl-project/sglang#30917), or one that answers `return_meta_info: true` with `meta_info.output_token_logprobs`',
    prompt: 'run an SGLang release whose /v1/chat/completions answers `return_prompt_token_ids: true` with `prompt_token_ids` on the choice',
    logprobs: 'SGLang must answer `logprobs: true` with `logprobs.content`, one entry per completion token',
  },
  openai: {
    completion: 'a hosted OpenAI-compatible API returns no token ids: serve the model with vLLM or SGLang (OWRL_POLICY_ENGINE=vllm|sglang) to train on its steps',
    prompt: 'a hosted OpenAI-compatible API returns no prompt token ids: serve the model with vLLM or SGLang to train on its steps',
    logprobs: 'the API must answer `logprobs: true` with `logprobs.content`',
  },
};

/** The checks of one chat-completion answer (`body` and its first choice) from `engine`. */
export function traceChecks(engine: ServingEngine, body: unknown, choice: Record<string, unknown>): EngineCheck[] {
  const t = readTokens(body, choice);
  const fix = FIX[engine];
  const ids = t.ids.length;
  return [
    ids > 0
      ? { name: 'completion_token_ids', ok: true, detail: `${ids} completion token ids (${t.idsFrom})` }
      : { name: 'completion_token_ids', ok: false, detail: `the ${engine} answer carries no completion token ids (choice.token_ids, meta_info.output_token_logprobs or "token_id:N" tokens)`, fix: fix.completion },
    t.promptIds.length > 0
      ? { name: 'prompt_token_ids', ok: true, detail: `${t.promptIds.length} prompt token ids` }
      : { name: 'prompt_token_ids', ok: false, detail: `the ${engine} answer carries no prompt token ids (prompt_token_ids on the response or the choice)`, fix: fix.prompt },
    t.logprobs.length > 0 && (ids === 0 || t.logprobs.length === ids)
      ? { name: 'logprobs', ok: true, detail: `${t.logprobs.length} log-probs, one per completion token` }
      : {
          name: 'logprobs',
          ok: false,
          detail: t.logprobs.length === 0 ? `the ${engine} answer carries no per-token log-probs (logprobs.content)` : `${t.logprobs.length} log-probs for ${ids} completion token ids`,
          fix: fix.logprobs,
        },
  ];
}

/** The failed checks as one sentence each (what is missing, then how to get it). */
export function describeFailed(checks: readonly EngineCheck[]): string {
  return checks
    .filter((c) => !c.ok)
    .map((c) => `${c.name}: ${c.detail}${c.fix ? `; ${c.fix}` : ''}`)
    .join('; ');
}

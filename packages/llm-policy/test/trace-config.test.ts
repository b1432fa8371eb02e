// Token traces from the response shapes of vLLM and SGLang (ids on the choice, "token_id:N"
// tokens, SGLang meta_info), incomplete traces, image sizes from JPEG/PNG headers, and the
// OWRL_POLICY_* configuration with its errors. Inputs are hand-written response bodies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '@owrl/core';
import { contextOverflow, firstChoice, imageSize, openAIPolicyConfigFromEnv, OpenAIPolicy, tokenTrace } from '@owrl/llm-policy';
import { SHOTS } from './fixtures.js';

const ctx = { model: 'owrl-v2', images: [] };
const choice = (body: unknown) => firstChoice(body) ?? assert.fail('no choice');

void describe('tokenTrace', () => {
  void it('reads vLLM return_token_ids: ids on the choice, prompt ids on the response', () => {
    const body = {
      choices: [{ message: { content: 'ok' }, finish_reason: 'stop', token_ids: [5, 6], logprobs: { content: [{ token: 'o', logprob: -0.5 }, { token: 'k', logprob: -0.25 }] } }],
      prompt_token_ids: [1, 2, 3],
      usage: { prompt_tokens: 3 },
    };
    const t = tokenTrace(body, choice(body), ctx);
    assert.deepEqual([t.tokenIds, t.logprobs, t.promptTokenIds, t.promptTokens, t.finishReason, t.incomplete, t.model], [[5, 6], [-0.5, -0.25], [1, 2, 3], 3, 'stop', false, 'owrl-v2']);
  });

  void it('reads ids from "token_id:N" logprob tokens and from SGLang meta_info', () => {
    const v = { choices: [{ message: {}, finish_reason: 'stop', logprobs: { content: [{ token: 'token_id:42', logprob: -1 }, { token: 'token_id:7', logprob: -2 }] } }] };
    assert.deepEqual(tokenTrace(v, choice(v), ctx).tokenIds, [42, 7]);
    const s = { choices: [{ message: {}, finish_reason: 'tool_calls', prompt_token_ids: [9], meta_info: { output_token_logprobs: [[-0.1, 11, null], [-0.2, 12, null]] } }], usage: { prompt_tokens: 1 } };
    const t = tokenTrace(s, choice(s), ctx);
    assert.deepEqual([t.tokenIds, t.logprobs, t.promptTokenIds, t.incomplete], [[11, 12], [-0.1, -0.2], [9], false]);
  });

  void it('marks a trace incomplete without ids, or with log-probs that do not match them', () => {
    const hosted = { choices: [{ message: {}, finish_reason: 'stop', logprobs: { content: [{ token: 'a', logprob: -1 }] } }] };
    assert.equal(tokenTrace(hosted, choice(hosted), ctx).incomplete, true);
    const skew = { choices: [{ message: {}, finish_reason: 'stop', token_ids: [1, 2], logprobs: { content: [{ token: 'a', logprob: -1 }] } }] };
    assert.equal(tokenTrace(skew, choice(skew), ctx).incomplete, true);
  });
});

void describe('contextOverflow', () => {
  void it('reads the numbers of each wording, and the completion budget that still fits', () => {
    // vLLM's renderer (current): input > limit - max_tokens is refused; room = limit - input
    const now = {
      error: {
        message:
          "You passed 3500 input tokens and requested 1024 output tokens. However, the model's context length is only 4096 tokens, resulting in a maximum input length of 3072 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=3500)",
        type: 'BadRequestError',
        param: 'input_tokens',
        code: 400,
      },
    };
    assert.deepEqual(contextOverflow(400, now, ''), { message: now.error.message, limit: 4096, input: 3500, room: 596 });
    const chars = { error: { message: "You passed 90000 input characters and requested 1024 output tokens. However, the model's context length is only 4096 tokens, resulting in a maximum input length of 3072 tokens (at most 12288 characters). Please reduce the length of the input prompt. (parameter=input_text, value=90000)" } };
    assert.deepEqual(contextOverflow(400, chars, ''), { message: chars.error.message, limit: 4096 }, 'a character count is not a token count');
    // vLLM, earlier releases
    const vllm = { error: { message: "'max_tokens' or 'max_completion_tokens' is too large: 1024. This model's maximum context length is 4096 tokens and your request has 3500 input tokens (1024 > 4096 - 3500). None", type: 'BadRequestError', code: 400 } };
    assert.deepEqual(contextOverflow(400, vllm, ''), { message: vllm.error.message, limit: 4096, input: 3500, room: 596 });
    const input = { error: { message: "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages." } };
    assert.deepEqual(contextOverflow(400, input, ''), { message: input.error.message, limit: 4096, input: 5000, room: -904 });
    const old = { object: 'error', message: "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", code: 400 };
    assert.deepEqual(contextOverflow(400, old, ''), { message: old.message, limit: 32768, input: 32000, room: 768 });
    // SGLang refuses input + max_new_tokens >= limit: one token less fits
    const sg = { object: 'error', message: "The input (40000 tokens) is longer than the model's context length (32768 tokens).", code: 400 };
    assert.deepEqual(contextOverflow(400, sg, ''), { message: sg.message, limit: 32768, input: 40000, room: -7233 });
    const total = {
      error: {
        message:
          "Requested token count exceeds the model's maximum context length of 32768 tokens. You requested a total of 33800 tokens: 32000 tokens from the input messages and 1800 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.",
      },
    };
    assert.deepEqual(contextOverflow(400, total, ''), { message: total.error.message, limit: 32768, input: 32000, room: 767 });
    assert.deepEqual(contextOverflow(400, { error: { message: 'too long', code: 'context_length_exceeded' } }, ''), { message: 'too long' });
    assert.equal(contextOverflow(400, { error: { message: 'Invalid tools format' } }, ''), undefined);
    assert.equal(contextOverflow(500, vllm, ''), undefined);
  });
});

void describe('imageSize', () => {
  void it('reads JPEG frames and PNG headers', () => {
    assert.deepEqual(imageSize(SHOTS[0] as Uint8Array), { width: 16, height: 10, mime: 'image/jpeg' });
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000002800000019008060000', 'hex');
    assert.deepEqual(imageSize(new Uint8Array(Buffer.concat([png, Buffer.alloc(8)]))), { width: 640, height: 400, mime: 'image/png' });
    assert.deepEqual(imageSize(Uint8Array.of(1, 2, 3)), { width: 0, height: 0, mime: 'image/jpeg' });
  });
});

void describe('configuration', () => {
  void it('reads OWRL_POLICY_* with defaults and redacts the key', () => {
    const c = openAIPolicyConfigFromEnv({ OWRL_POLICY_BASE_URL: 'http://vllm:8000/v1', OWRL_POLICY_MODEL: 'Qwen/Qwen3-VL-4B-Instruct', OWRL_POLICY_API_KEY: 'k-secret-value', OWRL_POLICY_COORDS: 'pixels', OWRL_POLICY_SCREENSHOTS: '2' });
    assert.deepEqual([c.engine, c.retries, c.timeoutMs, c.maxTokens, c.historyMode, c.screenshots, c.coords, c.toolsIn], ['vllm', 2, 30000, 1024, 'full', 2, { kind: 'pixels' }, 'native']);
    assert.equal(typeof c.apiKey === 'object' ? c.apiKey.reveal() : c.apiKey, 'k-secret-value');
    // the config can be logged whole: the key shows as [redacted]
    assert.doesNotMatch(JSON.stringify(c), /k-secret-value/);
    assert.match(JSON.stringify(c), /"apiKey":"\[redacted\]"/);
    assert.deepEqual(openAIPolicyConfigFromEnv({ OWRL_POLICY_BASE_URL: 'http://x/v1', OWRL_POLICY_MODEL: 'm', OWRL_POLICY_COORDS: 'relative:100' }).coords, { kind: 'relative', scale: 100 });
  });

  void it('names the variable that is wrong', () => {
    const bad = (env: Record<string, string>, variable: string, msg: RegExp) =>
      assert.throws(() => openAIPolicyConfigFromEnv({ OWRL_POLICY_BASE_URL: 'http://vllm:8000/v1', OWRL_POLICY_MODEL: 'm', ...env }), (e: unknown) => e instanceof ConfigError && e.variable === variable && msg.test(e.message));
    bad({ OWRL_POLICY_BASE_URL: '' }, 'OWRL_POLICY_BASE_URL', /is not set/);
    bad({ OWRL_POLICY_BASE_URL: 'vllm:8000' }, 'OWRL_POLICY_BASE_URL', /must be an http\(s\) URL/);
    bad({ OWRL_POLICY_MODEL: '' }, 'OWRL_POLICY_MODEL', /is not set/);
    bad({ OWRL_POLICY_ENGINE: 'tgi' }, 'OWRL_POLICY_ENGINE', /must be one of vllm, sglang, openai/);
    bad({ OWRL_POLICY_HISTORY: 'none' }, 'OWRL_POLICY_HISTORY', /full, hide_thinking, action_only/);
    bad({ OWRL_POLICY_COORDS: 'relative:-1' }, 'OWRL_POLICY_COORDS', /"pixels" or "relative\[:scale\]"/);
    bad({ OWRL_POLICY_RETRIES: '-1' }, 'OWRL_POLICY_RETRIES', /integer >= 0/);
  });

  void it('refuses a base URL with credentials in it', () => {
    assert.throws(() => new OpenAIPolicy({ baseUrl: 'http://user:pw@vllm:8000/v1', model: 'm' }), /must not carry credentials/);
    assert.throws(() => new OpenAIPolicy({ baseUrl: 'ftp://vllm/v1', model: 'm' }), /must be http\(s\)/);
  });
});

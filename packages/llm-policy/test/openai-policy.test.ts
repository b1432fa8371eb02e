// The `openai` policy against the testkit's stand-in model server over real HTTP, in vLLM's and
// SGLang's shapes: tool calls and chains, token traces equal to what the server sent, the
// screenshot sent is the latest, generation limits, context overflow (with the clamp retry),
// retries of 5xx, resets, slow and hung replies, refused requests, and the API key sent but never
// logged. Expectations come from the server's own records.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { MemoryMeter, mulberry32, type Logger } from '@owrl/core';
import { OpenAIPolicy, type OpenAIPolicyOptions } from '@owrl/llm-policy';
import { PolicyError, type PolicyDecision } from '@owrl/policy';
import { LogprobMode, type TokenTrace } from '@owrl/proto';
import { startChatServer, type ChatServerDouble } from '@owrl/testkit';
import { HISTORY, input, SHOTS, shopObservation } from './fixtures.js';

interface LogLine {
  level: string;
  obj: object;
  msg: string;
}
function recordingLogger(lines: LogLine[]): Logger {
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, msg: msg ?? '' });
  const l: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => l };
  return l;
}

const tokens = (d: PolicyDecision): TokenTrace => {
  assert.equal(d.trace.kind.case, 'tokens');
  return d.trace.kind.value as TokenTrace;
};
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function rejects(p: Promise<unknown>): Promise<PolicyError & { reason?: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof PolicyError, `expected a PolicyError, got ${String(e)}`);
    return e as PolicyError & { reason?: string };
  }
  return assert.fail('expected a rejection');
}

void describe('OpenAIPolicy on vLLM', () => {
  let srv: ChatServerDouble;
  const logs: LogLine[] = [];
  const make = (over: Partial<OpenAIPolicyOptions> = {}) =>
    new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', apiKey: 'sk-secret-123', version: 3n, timeoutMs: 2000, retries: 2, backoffMs: 1, logger: recordingLogger(logs), ...over });

  before(async () => {
    srv = await startChatServer({ engine: 'vllm', apiKey: 'sk-secret-123' });
  });
  after(() => srv.close());
  beforeEach(() => {
    srv.requests.length = 0;
    srv.sent.length = 0;
    logs.length = 0;
  });

  void it('turns native tool calls into a chain of calls with the token trace the server sent', async () => {
    srv.script({ reasoning: 'The mug is listed.', content: 'Opening it.', toolCalls: [{ name: 'click', arguments: { element_id: 4 } }, { name: 'wait', arguments: { seconds: 1 } }] });
    const d = await make().decide(input(), undefined, mulberry32(5));
    assert.deepEqual(d.calls, [
      { name: 'click', args: { element_id: 4 } },
      { name: 'wait', args: { seconds: 1 } },
    ]);
    assert.equal(d.reasoning, 'The mug is listed.\n\nOpening it.');
    assert.equal(d.parseError, undefined);
    const t = tokens(d);
    const sent = srv.sent[0];
    assert.ok(sent);
    assert.deepEqual(t.tokenIds, sent.tokenIds);
    assert.deepEqual(t.logprobs, sent.logprobs);
    assert.deepEqual(t.promptTokenIds, sent.promptTokenIds);
    assert.equal(t.promptTokens, sent.promptTokenIds.length);
    assert.deepEqual([t.finishReason, t.model, t.incomplete, t.lossMask.length], ['tool_calls', 'base-model', false, 0]);
    assert.deepEqual(
      t.images.map((i) => [i.sha256, i.mime, i.width, i.height, Number(i.bytes)]),
      [[sha(SHOTS[0] as Uint8Array), 'image/jpeg', 16, 10, (SHOTS[0] as Uint8Array).length]],
    );
    // what was asked for, and the seed drawn from the rollout's generator
    const body = srv.requests[0]?.body ?? {};
    assert.deepEqual([body['logprobs'], body['return_token_ids'], body['model'], body['seed']], [true, true, 'base-model', Math.floor(mulberry32(5)() * 2 ** 31)]);
    assert.equal(srv.requests[0]?.authorization, 'Bearer sk-secret-123');
  });

  void it('sends the latest screenshot, and the K latest with K = 2', async () => {
    const obs = shopObservation({ screenshots: [SHOTS[1] as Uint8Array, SHOTS[2] as Uint8Array] });
    srv.script({ toolCalls: [{ name: 'go_back', arguments: {} }] }, { toolCalls: [{ name: 'go_back', arguments: {} }] });
    await make().decide(input({ observation: obs, history: HISTORY, step: 2 }));
    assert.deepEqual(srv.requests[0]?.images.map(sha), [sha(SHOTS[2] as Uint8Array)]);
    const d = await make({ screenshots: 2 }).decide(input({ observation: obs, history: HISTORY, step: 2 }));
    assert.deepEqual(srv.requests[1]?.images.map(sha), [sha(SHOTS[1] as Uint8Array), sha(SHOTS[2] as Uint8Array)]);
    assert.deepEqual(
      tokens(d).images.map((i) => i.sha256),
      [sha(SHOTS[1] as Uint8Array), sha(SHOTS[2] as Uint8Array)],
    );
  });

  void it('reads Qwen-style tool calls written in the text', async () => {
    srv.script({ content: '<think>\nsearch first\n</think>\n\n<tool_call>\n{"name": "click", "arguments": {"point_2d": [500, 500]}}\n</tool_call>\n<tool_call>\n{"name": "write", "arguments": {"message": "mug"}}\n</tool_call>' });
    const d = await make().decide(input());
    assert.deepEqual(d.calls, [
      { name: 'click', args: { point_2d: [640, 400] } },
      { name: 'write', args: { message: 'mug' } },
    ]);
    assert.equal(d.reasoning, 'search first');
    assert.equal(d.raw, srv.sent[0]?.text);
  });

  void it('reports an unparseable reply with its reason, and keeps its tokens, masked out of training', async () => {
    srv.script({ content: 'The price is 12.50.' });
    const d = await make().decide(input());
    assert.equal(d.parseError, true);
    assert.match(d.parseErrorDetail ?? '', /^no tool call in the reply/);
    assert.deepEqual(d.calls, []);
    assert.deepEqual(tokens(d).tokenIds, srv.sent[0]?.tokenIds);
    assert.deepEqual(tokens(d).lossMask, srv.sent[0]?.tokenIds.map(() => 0));
  });

  void it('ends with a generation limit on a length cut-off, truncated call or not, its tokens masked out of training', async () => {
    srv.script({ content: 'Let me click <tool_call>\n{"name": "click", "argum', finishReason: 'length' });
    const d = await make().decide(input());
    assert.deepEqual([d.generationLimit, d.limitReason, d.parseError, d.calls.length], [true, 'generation_limit', undefined, 0]);
    assert.equal(tokens(d).finishReason, 'length');
    assert.equal(tokens(d).lossMask.length, srv.sent[0]?.tokenIds.length);
    assert.ok(tokens(d).lossMask.every((m) => m === 0));
  });

  void it('clamps max_tokens to the context left when vLLM refuses it, and ends with context_overflow when the prompt itself does not fit', async () => {
    srv.script({ kind: 'context_overflow', limit: 4096, input: 3900 }, { toolCalls: [{ name: 'wait', arguments: {} }] });
    const d = await make().decide(input());
    assert.deepEqual(d.calls, [{ name: 'wait', args: {} }]);
    assert.deepEqual(
      srv.requests.map((r) => r.body['max_tokens']),
      [1024, 196],
    );
    srv.script({ kind: 'context_overflow', limit: 4096, input: 5000 });
    const o = await make().decide(input());
    assert.deepEqual([o.generationLimit, o.limitReason, o.calls.length], [true, 'context_overflow', 0]);
    assert.deepEqual([tokens(o).finishReason, tokens(o).incomplete], ['context_overflow', true]);
  });

  void it('retries 5xx answers and reset connections, then answers', async () => {
    srv.script({ kind: 'status', status: 503 }, { kind: 'reset' }, { toolCalls: [{ name: 'go_back', arguments: {} }] });
    const meter = new MemoryMeter();
    const d = await make({ meter }).decide(input());
    assert.deepEqual(d.calls, [{ name: 'go_back', args: {} }]);
    assert.equal(srv.requests.length, 3);
    assert.equal(logs.filter((l) => l.msg === 'policy request failed; retrying').length, 2);
    assert.deepEqual(
      [meter.value('owrl_policy_requests_total', { outcome: 'ok' }), meter.value('owrl_policy_retries_total'), meter.value('owrl_policy_replies_total', { result: 'calls' })],
      [1, 2, 1],
    );
  });

  void it('gives up after its retries with policy_unavailable, never a decision', async () => {
    srv.script({ kind: 'status', status: 500 }, { kind: 'status', status: 502 }, { kind: 'status', status: 500 });
    const meter = new MemoryMeter();
    const e = await rejects(make({ meter }).decide(input()));
    assert.equal(meter.value('owrl_policy_requests_total', { outcome: 'unavailable' }), 1);
    assert.deepEqual([e.code, e.reason], ['POLICY_UNAVAILABLE', 'policy_unavailable']);
    assert.match(e.message, /did not answer after 3 attempts: HTTP 500/);
    assert.equal(srv.requests.length, 3);
  });

  void it('retries a slow reply past its deadline and a hung one, then gives up', async () => {
    srv.script({ toolCalls: [{ name: 'wait', arguments: {} }], delayMs: 8000 }, { toolCalls: [{ name: 'go_back', arguments: {} }] });
    const d = await make({ timeoutMs: 1500 }).decide(input());
    assert.deepEqual(d.calls, [{ name: 'go_back', args: {} }]);
    srv.script({ kind: 'hang' }, { kind: 'hang' });
    const e = await rejects(make({ timeoutMs: 200, retries: 1 }).decide(input()));
    assert.equal(e.code, 'POLICY_UNAVAILABLE');
    assert.match(e.message, /no answer within 200 ms/);
  });

  void it('does not retry a refused request (unknown model, bad key) and never logs the key', async () => {
    const e = await rejects(make({ model: 'owrl-v9' }).decide(input()));
    assert.deepEqual([e.reason, srv.requests.length], ['policy_rejected', 1]);
    assert.match(e.message, /HTTP 404: The model `owrl-v9` does not exist/);
    const e2 = await rejects(make({ apiKey: 'sk-wrong', retries: 0 }).decide(input()));
    assert.match(e2.message, /HTTP 401/);
    srv.script({ kind: 'status', status: 500 }, { toolCalls: [{ name: 'wait', arguments: {} }] });
    await make().decide(input());
    const everything = JSON.stringify(logs) + e.message + e2.message;
    assert.doesNotMatch(everything, /sk-secret-123|sk-wrong/);
  });

  void it('stops at once when the step is aborted', async () => {
    srv.script({ kind: 'hang' });
    const ac = new AbortController();
    const p = make({ timeoutMs: 10_000 }).decide(input(), ac.signal);
    setImmediate(() => ac.abort());
    const e = await rejects(p);
    assert.equal(e.code, 'POLICY_ABORTED');
  });
});

void describe('OpenAIPolicy on SGLang', () => {
  let srv: ChatServerDouble;
  before(async () => {
    srv = await startChatServer({ engine: 'sglang', contextLength: 2000 });
  });
  after(() => srv.close());

  void it('reads SGLang shapes: reasoning_content, token and prompt ids on the choice', async () => {
    srv.script({ reasoning: 'open the product', toolCalls: [{ name: 'click', arguments: '{"element_id": 4}' }] });
    const p = new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', engine: 'sglang', maxTokens: 256, retries: 0 });
    const d = await p.decide(input());
    assert.deepEqual(d.calls, [{ name: 'click', args: { element_id: 4 } }]);
    assert.equal(d.reasoning, 'open the product');
    const t = tokens(d);
    assert.deepEqual(t.tokenIds, srv.sent[0]?.tokenIds);
    assert.deepEqual(t.promptTokenIds, srv.sent[0]?.promptTokenIds);
    assert.equal(t.incomplete, false);
    assert.deepEqual([srv.requests[0]?.body['return_token_ids'], srv.requests[0]?.body['return_prompt_token_ids']], [true, true]);
  });

  void it('maps SGLang context-length refusals: clamp, then overflow', async () => {
    const p = new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', engine: 'sglang', maxTokens: 1800, retries: 0 });
    srv.script({ toolCalls: [{ name: 'wait', arguments: {} }] });
    const d = await p.decide(input());
    // the first request asks for 1800 tokens; the server states its input and the policy asks
    // for the rest (SGLang refuses input + max_tokens >= the context: one token less)
    const [first, second] = srv.requests.slice(-2);
    assert.equal(first?.body['max_tokens'], 1800);
    assert.equal(second?.body['max_tokens'], 2000 - (second?.promptTokens ?? 0) - 1);
    assert.deepEqual(d.calls, [{ name: 'wait', args: {} }]);
    const long = input({ instruction: 'x '.repeat(5000) });
    srv.script({ toolCalls: [{ name: 'wait', arguments: {} }] });
    const o = await p.decide(long);
    assert.deepEqual([o.generationLimit, o.limitReason], [true, 'context_overflow']);
  });
});

void describe('OpenAIPolicy against an engine that applies the model generation config', () => {
  // Qwen3-VL's generation_config.json sampling fields, which vLLM and SGLang apply to what a request leaves out
  const QWEN = { temperature: 0.7, top_p: 0.8, top_k: 20, repetition_penalty: 1.05 };
  for (const engine of ['vllm', 'sglang'] as const) {
    void it(`${engine}: every sampling field is set, so the generation config fills in none; the trace records them`, async () => {
      const srv = await startChatServer({ engine, generationConfig: QWEN, fallback: () => ({ toolCalls: [{ name: 'wait', arguments: {} }] }) });
      try {
        // a request that leaves them out runs with the generation config (what owrl sent before)
        await fetch(`${srv.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'base-model', messages: [{ role: 'user', content: 'hi' }], temperature: 1 }) });
        assert.deepEqual(srv.requests[0]?.sampling, { temperature: 1, top_p: 0.8, top_k: 20, min_p: 0, repetition_penalty: 1.05, presence_penalty: 0, frequency_penalty: 0 });
        const d = await new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', engine, retries: 0 }).decide(input(), undefined, mulberry32(2));
        assert.deepEqual(srv.requests[1]?.sampling, { temperature: 1, top_p: 1, top_k: -1, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 });
        const sampler = tokens(d).sampler;
        assert.deepEqual(
          [sampler?.temperature, sampler?.topP, sampler?.topK, sampler?.minP, sampler?.repetitionPenalty, sampler?.maxTokens, sampler?.engine, sampler?.logprobMode],
          [1, 1, -1, 0, 1, 1024, engine, engine === 'vllm' ? LogprobMode.RAW : LogprobMode.TEMPERATURE],
        );
        assert.equal(sampler?.seed, BigInt(Math.floor(mulberry32(2)() * 2 ** 31)));
        // chosen settings are sent as they are (SGLang's log-probs are after temperature: any temperature fits)
        if (engine === 'sglang') {
          await new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', engine, retries: 0, temperature: 0.6, topP: 0.95, topK: 40 }).decide(input());
          assert.deepEqual(srv.requests[2]?.sampling, { temperature: 0.6, top_p: 0.95, top_k: 40, min_p: 0, repetition_penalty: 1, presence_penalty: 0, frequency_penalty: 0 });
        }
      } finally {
        await srv.close();
      }
    });
  }

  void it('refuses a temperature with vLLM raw log-probs, and takes it with processed ones', () => {
    assert.throws(() => new OpenAIPolicy({ baseUrl: 'http://vllm:8000/v1', model: 'm', temperature: 0.7 }), /--logprobs-mode processed_logprobs/);
    assert.equal(new OpenAIPolicy({ baseUrl: 'http://vllm:8000/v1', model: 'm', temperature: 0.7, logprobMode: 'processed' }).logprobMode, 'processed');
    assert.throws(() => new OpenAIPolicy({ baseUrl: 'http://api/v1', model: 'm', engine: 'openai', topK: 20 }), /has no top_k/);
    assert.throws(() => new OpenAIPolicy({ baseUrl: 'http://sglang/v1', model: 'org/m:tag', engine: 'sglang' }), /cannot carry a colon/);
  });
});

void describe('OpenAIPolicy against engine releases without token ids', () => {
  const reply = () => ({ toolCalls: [{ name: 'wait', arguments: {} }] });
  void it('a vLLM release without return_token_ids ends the step engine_incompatible, naming the release that has them', async () => {
    const srv = await startChatServer({ engine: 'vllm', returnTokenIds: false, fallback: reply });
    try {
      const e = await rejects(new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', retries: 0 }).decide(input()));
      assert.deepEqual([e.code, e.reason], ['POLICY_UNAVAILABLE', 'engine_incompatible']);
      assert.match(e.message, /cannot record token-level traces: completion_token_ids: .*run vLLM 0\.10\.2 or later.*prompt_token_ids/);
      // an evaluation that asks for no log-probs is not stopped
      const d = await new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', retries: 0, logprobs: false }).decide(input());
      assert.deepEqual([d.calls.length, tokens(d).incomplete], [1, true]);
      // nor is a hosted API (engine openai), which never returns token ids
      const hosted = await new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', retries: 0, engine: 'openai' }).decide(input());
      assert.deepEqual([hosted.calls.length, tokens(hosted).incomplete], [1, true]);
    } finally {
      await srv.close();
    }
  });

  void it('an SGLang release without chat token ids: the ids come from meta_info; without meta_info either, the step ends engine_incompatible', async () => {
    const meta = await startChatServer({ engine: 'sglang', returnTokenIds: false, fallback: reply });
    try {
      const d = await new OpenAIPolicy({ baseUrl: meta.url, model: 'base-model', engine: 'sglang', retries: 0 }).decide(input());
      assert.deepEqual([tokens(d).tokenIds, tokens(d).promptTokenIds, tokens(d).incomplete], [meta.sent[0]?.tokenIds, meta.sent[0]?.promptTokenIds, false]);
    } finally {
      await meta.close();
    }
    const none = await startChatServer({ engine: 'sglang', returnTokenIds: false, returnMetaInfo: false, fallback: reply });
    try {
      const e = await rejects(new OpenAIPolicy({ baseUrl: none.url, model: 'base-model', engine: 'sglang', retries: 0 }).decide(input()));
      assert.equal(e.reason, 'engine_incompatible');
      assert.match(e.message, /sgl-project\/sglang#30917/);
    } finally {
      await none.close();
    }
  });
});

void describe('OpenAIPolicy on each context-length wording', () => {
  // every wording the engines use, now and before: the prompt is 3900 tokens of a 4096 context
  for (const [engine, vllmWording] of [
    ['vllm', 'current'],
    ['vllm', 'legacy'],
    ['sglang', 'current'],
  ] as const) {
    void it(`${engine} (${vllmWording}): clamps once to what fits, and a prompt past the context ends context_overflow after one request`, async () => {
      const srv = await startChatServer({ engine, vllmWording, fallback: reply });
      try {
        const p = new OpenAIPolicy({ baseUrl: srv.url, model: 'base-model', engine, retries: 0 });
        srv.script({ kind: 'context_overflow', limit: 4096, input: 3900 }, { toolCalls: [{ name: 'wait', arguments: {} }] });
        const d = await p.decide(input());
        assert.deepEqual(d.calls, [{ name: 'wait', args: {} }]);
        // vLLM refuses input + max_tokens > limit, SGLang >= limit
        assert.deepEqual(
          srv.requests.map((r) => r.body['max_tokens']),
          [1024, engine === 'sglang' ? 195 : 196],
        );
        assert.equal(tokens(d).sampler?.maxTokens, engine === 'sglang' ? 195 : 196, 'the trace records the budget the answer had');
        srv.script({ kind: 'context_overflow', limit: 4096, input: 5000 });
        const o = await p.decide(input());
        assert.deepEqual([o.generationLimit, o.limitReason, srv.requests.length], [true, 'context_overflow', 3]);
      } finally {
        await srv.close();
      }
    });
  }
  function reply() {
    return { toolCalls: [{ name: 'wait', arguments: {} }] };
  }
});

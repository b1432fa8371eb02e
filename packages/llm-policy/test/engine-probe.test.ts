// probeEngine against the model-server stand-in in both engines' protocols and releases: a
// complete engine passes every check with the request the policy would send; a release without
// completion token ids, an SGLang release that gives them only in meta_info, runtime LoRA loading
// off, a model not served and a server that is not there each come back as the failed check that
// names the field and the release or flag that provides it. Expected requests are written out.
import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { probeEngine, type EngineProbeResult } from '@owrl/llm-policy';
import { startChatServer, type ChatServerOptions } from '@owrl/testkit';

const BASE = 'Qwen/Qwen3-VL-4B-Instruct';
const REPLY = { toolCalls: [{ name: 'done', arguments: { response: 'ok' } }] };

async function probe(opts: ChatServerOptions & { engine: 'vllm' | 'sglang' }, extra: { adapter?: string; adapters?: boolean } = {}) {
  const srv = await startChatServer({ baseModel: BASE, fallback: () => REPLY, ...opts });
  try {
    if (extra.adapter) srv.adapters.set(extra.adapter, '/shared/adapters/v1');
    const r = await probeEngine({ baseUrl: srv.url, model: BASE, engine: opts.engine, timeoutMs: 5000, ...extra });
    return { r, requests: srv.requests };
  } finally {
    await srv.close();
  }
}

const check = (r: EngineProbeResult, name: string) => r.checks.find((c) => c.name === name) ?? assert.fail(`no check ${name} in ${JSON.stringify(r.checks)}`);
const failed = (r: EngineProbeResult) => r.checks.filter((c) => !c.ok).map((c) => c.name);

void describe('probeEngine', () => {
  void it('vLLM with token ids and runtime LoRA: every check passes, with the request the policy sends', async () => {
    const { r, requests } = await probe({ engine: 'vllm' });
    assert.deepEqual(failed(r), []);
    assert.equal(r.ok, true);
    assert.deepEqual(
      r.checks.map((c) => c.name),
      ['settings', 'server', 'model', 'chat', 'completion_token_ids', 'prompt_token_ids', 'logprobs', 'adapter_api'],
    );
    const body = requests[0]?.body ?? {};
    assert.deepEqual(
      [body['model'], body['logprobs'], body['return_token_ids'], body['temperature'], body['top_p'], body['top_k'], body['min_p'], body['repetition_penalty'], body['max_tokens']],
      [BASE, true, true, 1, 1, -1, 0, 1, 16],
    );
  });

  void it('a vLLM release without return_token_ids fails the id checks, naming the release that has them', async () => {
    const { r } = await probe({ engine: 'vllm', returnTokenIds: false });
    assert.equal(r.ok, false);
    assert.deepEqual(failed(r), ['completion_token_ids', 'prompt_token_ids']);
    assert.match(check(r, 'completion_token_ids').fix ?? '', /vLLM 0\.10\.2 or later.*return_token_ids/);
    assert.match(check(r, 'prompt_token_ids').fix ?? '', /prompt_token_ids/);
  });

  void it('vLLM without runtime LoRA updating: the adapter API check fails with the variable to set', async () => {
    const { r } = await probe({ engine: 'vllm', lora: false });
    assert.deepEqual(failed(r), ['adapter_api']);
    assert.match(check(r, 'adapter_api').fix ?? '', /VLLM_ALLOW_RUNTIME_LORA_UPDATING=True and --enable-lora/);
    // a run that does not load adapters does not need it
    const noLoads = await probe({ engine: 'vllm', lora: false }, { adapters: false });
    assert.equal(noLoads.r.ok, true);
  });

  void it('SGLang names the adapter as <served model>:<adapter>, and the adapter serves the probe', async () => {
    const { r, requests } = await probe({ engine: 'sglang' }, { adapter: 'owrl-v1' });
    assert.deepEqual(failed(r), []);
    assert.deepEqual([requests[0]?.body['model'], requests[0]?.body['lora_path'], requests[0]?.servedBy], [`${BASE}:owrl-v1`, 'owrl-v1', 'owrl-v1']);
    assert.deepEqual([requests[0]?.body['return_token_ids'], requests[0]?.body['return_prompt_token_ids'], requests[0]?.body['return_meta_info']], [true, true, true]);
  });

  void it('an SGLang release without chat token ids: ids from meta_info pass; without meta_info the check names the release', async () => {
    const meta = await probe({ engine: 'sglang', returnTokenIds: false });
    assert.deepEqual(failed(meta.r), []);
    assert.match(check(meta.r, 'completion_token_ids').detail, /meta_info/);
    const none = await probe({ engine: 'sglang', returnTokenIds: false, returnMetaInfo: false });
    assert.deepEqual(failed(none.r), ['completion_token_ids']);
    assert.match(check(none.r, 'completion_token_ids').fix ?? '', /return_token_ids.*sgl-project\/sglang#30917.*return_meta_info/);
  });

  void it('SGLang without --enable-lora: the adapter API check names the flags its start-up check wants', async () => {
    const { r } = await probe({ engine: 'sglang', lora: false });
    assert.deepEqual(failed(r), ['adapter_api']);
    assert.match(check(r, 'adapter_api').fix ?? '', /--enable-lora --max-lora-rank <r> --lora-target-modules all/);
  });

  void it('a model not served, a server not there, bad settings', async () => {
    const srv = await startChatServer({ engine: 'vllm', baseModel: 'other-model', fallback: () => REPLY });
    try {
      const r = await probeEngine({ baseUrl: srv.url, model: BASE, engine: 'vllm', adapters: false });
      assert.deepEqual(failed(r), ['model', 'chat']);
      assert.match(check(r, 'model').detail, /"Qwen\/Qwen3-VL-4B-Instruct" is not among the served models \["other-model"\]/);
      assert.match(check(r, 'chat').detail, /404: The model `Qwen\/Qwen3-VL-4B-Instruct` does not exist/);
    } finally {
      await srv.close();
    }
    // a port nothing listens on
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const down = await probeEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, model: BASE, engine: 'vllm', timeoutMs: 2000 });
    assert.deepEqual(failed(down), ['server']);
    assert.match(check(down, 'server').detail, /ECONNREFUSED/);
    const colon = await probeEngine({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'org/model:tag', engine: 'sglang', timeoutMs: 2000 });
    assert.match(check(colon, 'settings').detail, /cannot carry a colon/);
    await assert.rejects(probeEngine({ baseUrl: 'vllm:8000', model: BASE, engine: 'vllm' }), /is not a URL|must be http/);
  });
});

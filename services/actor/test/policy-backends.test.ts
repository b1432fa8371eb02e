// The actor's policy backends: OWRL_POLICY chooses pointer or openai and the openai settings are
// checked at startup (a bad one names its variable); with openai, a published lora-adapter or
// full-weights version becomes an OpenAIPolicy whose requests name that version's served model
// against a model-server stand-in; a version of a kind the backend cannot run is refused and
// episodes are refused with it instead of running the older policy. With a weight loader the
// actor makes the engine load each version once, however many slots run it, before any request
// names it; the base (no uri) is served as configured, nothing loaded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ConfigError, silentLogger } from '@owrl/core';
import { EngineWeightLoader } from '@owrl/llm-policy';
import { make, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import type { PolicyInput } from '@owrl/policy';
import { startChatServer, type ChatServerDouble } from '@owrl/testkit';
import { loadActorConfig } from '../src/config.js';
import { openaiBackend } from '../src/policy-backends.js';
import { PolicyHolder } from '../src/policy-holder.js';

function artifact(version: number, kind: string, serveName = ''): PolicyArtifact {
  return make(PolicyArtifactSchema, { version: BigInt(version), uri: `file:///shared/v${version}`, sha256: 'b'.repeat(64), kind, serveName });
}

const input: PolicyInput = {
  instruction: 'Open the blue mug page.',
  observation: {
    url: 'http://127.0.0.1:8400/shop',
    title: 'Shop',
    tabs: [{ index: 0, url: 'http://127.0.0.1:8400/shop', title: 'Shop', active: true }],
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
  maxSteps: 5,
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadActorConfig(env);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  return assert.fail('expected a ConfigError');
}

void describe('actor policy backends', () => {
  let srv: ChatServerDouble;
  before(async () => {
    srv = await startChatServer({ engine: 'vllm', baseModel: 'Qwen/Qwen3-VL-4B-Instruct' });
  });
  after(async () => {
    await srv.close();
  });

  void it('OWRL_POLICY picks the backend; the openai settings are checked at startup', () => {
    assert.equal(loadActorConfig({}).policy, 'pointer');
    assert.equal(loadActorConfig({}).openai, undefined);
    assert.match(configError({ OWRL_POLICY: 'gpt' }).message, /OWRL_POLICY="gpt" must be one of pointer, openai/);
    assert.match(configError({ OWRL_POLICY: 'openai' }).message, /OWRL_POLICY_BASE_URL is not set/);
    assert.match(configError({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: 'http://x:8000/v1', OWRL_POLICY_MODEL: 'm', OWRL_POLICY_HISTORY: 'all' }).message, /OWRL_POLICY_HISTORY/);
    const c = loadActorConfig({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: srv.url, OWRL_POLICY_MODEL: 'Qwen/Qwen3-VL-4B-Instruct', OWRL_POLICY_API_KEY: 'sk-1' });
    assert.equal(c.openai?.baseUrl, srv.url);
    assert.doesNotMatch(JSON.stringify(c), /sk-1/);
  });

  void it('openai: each version runs as the model the engine serves it under, and names it in every request', async () => {
    const cfg = loadActorConfig({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: srv.url, OWRL_POLICY_MODEL: 'Qwen/Qwen3-VL-4B-Instruct', OWRL_POLICY_RETRIES: '0' });
    const holder = new PolicyHolder(silentLogger, openaiBackend(cfg.openai!, silentLogger));
    srv.adapters.set('owrl-v3', '/shared/v3'); // the learner had the engine load it
    holder.offer(artifact(3, 'lora-adapter', 'owrl-v3'));
    await holder.waitFor(3, 2000);
    const held = holder.acquire();
    assert.equal(held.version, 3);
    assert.equal(held.policy.version, 3n);
    srv.script({ content: 'Open it.\n<tool_call>\n{"name": "done", "arguments": {"response": "ok"}}\n</tool_call>' });
    const d = await held.policy.decide(input);
    held.release();
    assert.equal(srv.requests.at(-1)?.model, 'owrl-v3');
    assert.equal(d.trace.kind.case === 'tokens' ? d.trace.kind.value.model : '', 'owrl-v3');
    // full weights: the served model keeps its name
    holder.offer(artifact(4, 'full-weights'));
    await holder.waitFor(4, 2000);
    const h4 = holder.acquire();
    srv.script({ content: '<tool_call>\n{"name": "done", "arguments": {"response": "ok"}}\n</tool_call>' });
    await h4.policy.decide(input);
    h4.release();
    assert.equal(h4.version, 4);
    assert.equal(srv.requests.at(-1)?.model, 'Qwen/Qwen3-VL-4B-Instruct');
    await holder.close();
  });

  void it('a version of a kind the backend cannot run is refused, and so are episodes, until a runnable one arrives', async () => {
    const cfg = loadActorConfig({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: srv.url, OWRL_POLICY_MODEL: 'base' });
    const errors: string[] = [];
    const log = { ...silentLogger, error: (_o: object, msg?: string) => void errors.push(msg ?? ''), child: () => log };
    const holder = new PolicyHolder(log, openaiBackend(cfg.openai!, log));
    holder.offer(artifact(1, 'lora-adapter', 'owrl-v1'));
    await holder.waitFor(1, 2000);
    holder.offer(artifact(2, 'onnx-pointer'));
    await holder.waitFor(2, 2000);
    assert.throws(() => holder.acquire(), /policy version 2 is of kind "onnx-pointer", which this actor's backend \(OWRL_POLICY=openai\) cannot run.*not running the older version 1/);
    assert.match(errors.join('\n'), /version 2 is of kind "onnx-pointer"/);
    holder.offer(artifact(3, 'lora-adapter', 'owrl-v3'));
    await holder.waitFor(3, 2000);
    assert.equal(holder.acquire().version, 3);
    await holder.close();
    // the pointer backend refuses adapters the same way
    const pointer = new PolicyHolder(log);
    pointer.offer(artifact(1, 'lora-adapter'));
    await pointer.waitFor(1, 2000);
    assert.throws(() => pointer.acquire(), /OWRL_POLICY=pointer\) cannot run; it runs onnx-pointer/);
    await pointer.close();
  });

  for (const engine of ['vllm', 'sglang'] as const) {
    void it(`${engine}, with a weight loader: each version is loaded once, before any of the slots names it, and its adapter serves every request naming it; the base needs no load`, async () => {
      const eng = await startChatServer({ engine, baseModel: 'Qwen/Qwen3-VL-4B-Instruct', fallback: () => ({ content: '<tool_call>\n{"name": "done", "arguments": {"response": "ok"}}\n</tool_call>' }) });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-adapters-'));
      const adapter = (v: number): PolicyArtifact => {
        const d = path.join(dir, `v${v}`);
        fs.mkdirSync(d, { recursive: true });
        fs.writeFileSync(path.join(d, 'adapter_config.json'), '{"peft_type": "LORA", "r": 8}');
        return make(PolicyArtifactSchema, { version: BigInt(v), uri: pathToFileURL(d).href, sha256: 'c'.repeat(64), kind: 'lora-adapter', serveName: `owrl-v${v}` });
      };
      const load = engine === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter';
      const unload = engine === 'vllm' ? '/v1/unload_lora_adapter' : '/unload_lora_adapter';
      try {
        const cfg = loadActorConfig({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: eng.url, OWRL_POLICY_MODEL: 'Qwen/Qwen3-VL-4B-Instruct', OWRL_POLICY_ENGINE: engine, OWRL_POLICY_RETRIES: '0' });
        assert.equal(cfg.loadWeights, true, `on by default with ${engine}`);
        const loader = new EngineWeightLoader({ engine, baseUrl: eng.url, logger: silentLogger });
        const holder = new PolicyHolder(silentLogger, openaiBackend(cfg.openai!, silentLogger, loader));
        /** Four slots each run one decision with the current policy. */
        const slots = async () =>
          Promise.all(
            [0, 1, 2, 3].map(async () => {
              const h = holder.acquire();
              try {
                await h.policy.decide(input);
                return h.version;
              } finally {
                h.release();
              }
            }),
          );
        holder.offer(make(PolicyArtifactSchema, { version: 0n, kind: 'lora-adapter' }));
        await holder.waitFor(0, 2000);
        assert.deepEqual(await slots(), [0, 0, 0, 0]);
        assert.equal(eng.weightCalls.length, 0, 'the base is served as configured');
        assert.deepEqual(new Set(eng.requests.map((r) => r.servedBy)), new Set(['Qwen/Qwen3-VL-4B-Instruct']));
        for (const v of [1, 2, 3, 4]) {
          const a = adapter(v);
          holder.offer(a);
          holder.offer(a); // the pointer watch may deliver a value again
          await holder.waitFor(v, 5000);
          assert.deepEqual(await slots(), [v, v, v, v]);
        }
        const loads = eng.weightCalls.filter((c) => c.path === load);
        assert.deepEqual(
          loads.map((c) => [c.body['lora_name'], c.status]),
          [1, 2, 3, 4].map((v) => [`owrl-v${v}`, 200]),
          'one load per version',
        );
        // every request ran, and ran on the adapter of the version the slot held (SGLang runs the
        // base model for a request that names an adapter any other way than it resolves)
        assert.equal(eng.sent.length, 20);
        assert.deepEqual(
          eng.requests.slice(4).map((r) => r.servedBy),
          [1, 2, 3, 4].flatMap((v) => Array<string>(4).fill(`owrl-v${v}`)),
        );
        assert.deepEqual(
          eng.weightCalls.filter((c) => c.path === unload).map((c) => c.body['lora_name']),
          ['owrl-v1'],
          'adapters beyond the newest three are unloaded',
        );
        await holder.close();
        assert.match(configError({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: eng.url, OWRL_POLICY_MODEL: 'm', OWRL_POLICY_ENGINE: 'openai', OWRL_POLICY_LOAD_WEIGHTS: '1' }).message, /OWRL_POLICY_LOAD_WEIGHTS is on but OWRL_POLICY_ENGINE=openai/);
        assert.equal(loadActorConfig({ OWRL_POLICY: 'openai', OWRL_POLICY_BASE_URL: eng.url, OWRL_POLICY_MODEL: 'm', OWRL_POLICY_ENGINE: 'openai' }).loadWeights, false);
      } finally {
        await eng.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

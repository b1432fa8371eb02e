// EngineWeightLoader against the model-server stand-in in both engines' protocols: exactly one
// engine load per version however many concurrent and repeated calls, an adapter already held by
// the engine (a restarted learner) counted as loaded, old adapters unloaded after the retention,
// SGLang full weights through update_weights_from_disk, and clear refusals (vLLM full weights,
// onnx-pointer, a URI the engine cannot read, an engine error) after which a retry loads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { EngineLoadError, EngineLoadErrorCode, EngineWeightLoader } from '@owrl/llm-policy';
import { make, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import { startChatServer } from '@owrl/testkit';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-engine-load-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function adapter(version: number, opts: { serveName?: string; kind?: string; make?: boolean } = {}): PolicyArtifact {
  const dir = path.join(root, `v${version}`);
  if (opts.make !== false) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'adapter_config.json'), '{"r": 8}');
    fs.writeFileSync(path.join(dir, 'config.json'), '{}');
  }
  return make(PolicyArtifactSchema, {
    version: BigInt(version),
    uri: pathToFileURL(dir).href,
    sha256: 'a'.repeat(64),
    kind: opts.kind ?? 'lora-adapter',
    serveName: opts.serveName ?? `owrl-v${version}`,
    baseModel: 'base-model',
  });
}

async function refusal(p: Promise<unknown>): Promise<EngineLoadError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof EngineLoadError, `expected an EngineLoadError, got ${String(e)}`);
    return e;
  }
  return assert.fail('expected a refusal');
}

void describe('EngineWeightLoader', () => {
  for (const engine of ['vllm', 'sglang'] as const) {
    void it(`${engine}: one adapter load per version, concurrent calls deduped, old adapters unloaded, requests can name it`, async () => {
      const srv = await startChatServer({ engine });
      try {
        const loader = new EngineWeightLoader({ engine, baseUrl: srv.url, keepAdapters: 2 });
        const loadPath = engine === 'vllm' ? '/v1/load_lora_adapter' : '/load_lora_adapter';
        const unloadPath = engine === 'vllm' ? '/v1/unload_lora_adapter' : '/unload_lora_adapter';
        for (let v = 1; v <= 4; v++) {
          const a = adapter(v);
          const got = await Promise.all([loader.loadVersion(a), loader.loadVersion(a), loader.loadVersion(a)]);
          assert.deepEqual(got.map((g) => g.serveName), [`owrl-v${v}`, `owrl-v${v}`, `owrl-v${v}`]);
          await loader.loadVersion(a);
        }
        const loads = srv.weightCalls.filter((c) => c.path === loadPath);
        assert.deepEqual(loads.map((c) => c.body['lora_name']), ['owrl-v1', 'owrl-v2', 'owrl-v3', 'owrl-v4']);
        assert.deepEqual(loads.map((c) => c.body['lora_path']), [1, 2, 3, 4].map((v) => path.join(root, `v${v}`)));
        assert.deepEqual(srv.weightCalls.filter((c) => c.path === unloadPath).map((c) => c.body['lora_name']), ['owrl-v1', 'owrl-v2']);
        assert.deepEqual([...srv.adapters.keys()], ['owrl-v3', 'owrl-v4']);
        assert.deepEqual(loader.loadedVersions(), [3n, 4n]);
        if (engine === 'vllm') {
          // the engine now serves the version by its name
          srv.script({ content: 'ok' });
          const r = await fetch(`${srv.url}/chat/completions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'owrl-v4', messages: [{ role: 'user', content: 'hi' }] }),
          });
          assert.equal(r.status, 200, await r.text());
        }
      } finally {
        await srv.close();
      }
    });
  }

  void it('vllm: an adapter the engine already holds (a restarted learner) counts as loaded', async () => {
    const srv = await startChatServer({ engine: 'vllm' });
    try {
      await new EngineWeightLoader({ engine: 'vllm', baseUrl: srv.origin }).loadVersion(adapter(7));
      const again = await new EngineWeightLoader({ engine: 'vllm', baseUrl: srv.origin }).loadVersion(adapter(7));
      assert.equal(again.alreadyLoaded, true);
      assert.deepEqual(srv.weightCalls.map((c) => c.status), [200, 400]);
    } finally {
      await srv.close();
    }
  });

  void it('sglang: full weights through update_weights_from_disk once per version, never backwards', async () => {
    const srv = await startChatServer({ engine: 'sglang' });
    try {
      const loader = new EngineWeightLoader({ engine: 'sglang', baseUrl: srv.url });
      const a = adapter(2, { kind: 'full-weights', serveName: '' });
      await Promise.all([loader.loadVersion(a), loader.loadVersion(a)]);
      const r = await loader.loadVersion(a);
      assert.equal(r.serveName, '');
      assert.deepEqual(srv.weightCalls.map((c) => [c.path, c.body['model_path'], c.body['weight_version']]), [['/update_weights_from_disk', path.join(root, 'v2'), 'v2']]);
      assert.equal(srv.weightsPath, path.join(root, 'v2'));
      const e = await refusal(loader.loadVersion(adapter(1, { kind: 'full-weights' })));
      assert.match(e.message, /version 1 is not newer than version 2/);
    } finally {
      await srv.close();
    }
  });

  void it('refuses what the engine cannot load, with the reason; a failed load is retried by the next call', async () => {
    const srv = await startChatServer({ engine: 'vllm' });
    try {
      const loader = new EngineWeightLoader({ engine: 'vllm', baseUrl: srv.url, retries: 0 });
      let e = await refusal(loader.loadVersion(adapter(1, { kind: 'full-weights' })));
      assert.equal(e.code, EngineLoadErrorCode.Unsupported);
      assert.match(e.message, /no HTTP call that loads weights from a folder/);
      e = await refusal(loader.loadVersion(adapter(1, { kind: 'onnx-pointer' })));
      assert.match(e.message, /kind "onnx-pointer"/);
      e = await refusal(loader.loadVersion({ ...adapter(1), uri: 'https://example.org/v1' }));
      assert.equal(e.code, EngineLoadErrorCode.BadArtifact);
      const missing = adapter(9, { make: false });
      e = await refusal(loader.loadVersion(missing));
      assert.equal(e.code, EngineLoadErrorCode.Failed);
      assert.match(e.message, /refused POST \/v1\/load_lora_adapter for version 9 .*HTTP 404 .*No adapter found/);
      adapter(9);
      const ok = await loader.loadVersion(missing);
      assert.equal(ok.serveName, 'owrl-v9');
      assert.deepEqual(srv.weightCalls.map((c) => c.status), [404, 200]);
      await srv.close();
      e = await refusal(loader.loadVersion(adapter(10)));
      assert.match(e.message, /did not answer POST \/v1\/load_lora_adapter after 1 attempts/);
    } finally {
      await srv.close().catch(() => undefined);
    }
  });
});

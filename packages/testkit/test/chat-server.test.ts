// The model-server stand-in speaks vLLM's and SGLang's weight endpoints the way those servers do:
// a loaded LoRA adapter becomes a model name requests may use, loading the same name twice is a
// 400 unless in place, unknown adapters are 404, and SGLang's update_weights_from_disk answers
// {success, message}. Expected bodies are the servers' documented texts, written out here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { startChatServer } from '@owrl/testkit';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'owrl-chat-double-'));
fs.writeFileSync(path.join(dir, 'adapter_config.json'), '{}');
after(() => fs.rmSync(dir, { recursive: true, force: true }));

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

void describe('chat server stand-in: weight endpoints', () => {
  void it('vLLM: load, serve, reload, unload LoRA adapters', async () => {
    const srv = await startChatServer({ engine: 'vllm' });
    try {
      const chat = (model: string) => post(`${srv.url}/chat/completions`, { model, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal((await chat('owrl-v1')).status, 404);
      assert.deepEqual(await post(`${srv.url}/load_lora_adapter`, { lora_name: 'owrl-v1', lora_path: dir }), { status: 200, text: "Success: LoRA adapter 'owrl-v1' added successfully." });
      srv.script({ toolCalls: [{ name: 'wait', arguments: {} }] });
      assert.equal((await chat('owrl-v1')).status, 200);
      const again = await post(`${srv.url}/load_lora_adapter`, { lora_name: 'owrl-v1', lora_path: dir });
      assert.equal(again.status, 400);
      assert.match(JSON.parse(again.text).error.message as string, /has already been loaded/);
      assert.equal((await post(`${srv.url}/load_lora_adapter`, { lora_name: 'owrl-v1', lora_path: dir, load_inplace: true })).status, 200);
      assert.equal((await post(`${srv.url}/load_lora_adapter`, { lora_name: 'x', lora_path: path.join(dir, 'nope') })).status, 404);
      assert.deepEqual(await post(`${srv.url}/unload_lora_adapter`, { lora_name: 'owrl-v1' }), { status: 200, text: "Success: LoRA adapter 'owrl-v1' removed successfully." });
      assert.equal((await post(`${srv.url}/unload_lora_adapter`, { lora_name: 'owrl-v1' })).status, 404);
      assert.deepEqual(
        srv.weightCalls.map((c) => [c.path, c.status]),
        [
          ['/v1/load_lora_adapter', 200],
          ['/v1/load_lora_adapter', 400],
          ['/v1/load_lora_adapter', 200],
          ['/v1/load_lora_adapter', 404],
          ['/v1/unload_lora_adapter', 200],
          ['/v1/unload_lora_adapter', 404],
        ],
      );
    } finally {
      await srv.close();
    }
  });

  void it('SGLang: update weights from disk, and its error shape', async () => {
    const srv = await startChatServer({ engine: 'sglang' });
    try {
      const ok = await post(`${srv.origin}/update_weights_from_disk`, { model_path: dir, weight_version: 'v3' });
      assert.deepEqual([ok.status, JSON.parse(ok.text)], [200, { success: true, message: 'Succeeded to update model weights.', num_paused_requests: 0 }]);
      assert.equal(srv.weightsPath, dir);
      const bad = await post(`${srv.origin}/update_weights_from_disk`, { model_path: '/does/not/exist' });
      assert.equal(bad.status, 400);
      assert.equal(JSON.parse(bad.text).success, false);
      srv.script({ kind: 'status', status: 400, message: 'bad request' });
      const err = await post(`${srv.url}/chat/completions`, { model: 'base-model', messages: [] });
      assert.deepEqual(JSON.parse(err.text), { object: 'error', message: 'bad request', type: 'BadRequestError', param: null, code: 400 });
    } finally {
      await srv.close();
    }
  });
});

// A policy load that fails because the learner's artifact server is down (it was killed and is
// restarting) is retried until it loads, without the weights pointer moving again: a restarted
// learner does not re-publish a version the pointer already names. Real pointer backend (HTTP
// fetch, sha256 check, onnxruntime session) against a real HTTP server that comes up late.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { it } from 'node:test';
import { silentLogger } from '@owrl/core';
import { waitUntil } from '@owrl/testkit';
import { DEFAULT_DIM, exportOnnx, initialModel, POLICY_KIND } from '@owrl/policy';
import { make, PolicyArtifactSchema, type PolicyArtifact } from '@owrl/proto';
import { PolicyHolder } from '../src/policy-holder.js';
import { pointerBackend } from '../src/policy-backends.js';

/** An HTTP server serving `bytes` at /v<version>.onnx, started on `port` (0: any). */
async function serve(files: Map<string, Uint8Array>, port = 0): Promise<{ port: number; requests: number; close(): Promise<void> }> {
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    const bytes = files.get(req.url ?? '');
    if (!bytes) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': String(bytes.length) }).end(bytes);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get requests() {
      return state.requests;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function artifact(version: number, port: number, bytes: Uint8Array): PolicyArtifact {
  return make(PolicyArtifactSchema, {
    version: BigInt(version),
    uri: `http://127.0.0.1:${port}/v${version}.onnx`,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: BigInt(bytes.length),
    kind: POLICY_KIND,
    temperature: 1,
  });
}

void it('a load that fails while the artifact server is down is retried until it loads, with no new offer', async () => {
  const bytes = exportOnnx(initialModel({ dim: DEFAULT_DIM, temperature: 1 }));
  const files = new Map([['/v1.onnx', bytes]]);
  // Take a free port, then close it: the first fetches are refused, as from a killed learner.
  const probe = await serve(files);
  const port = probe.port;
  await probe.close();
  const rejected: number[] = [];
  const log = { ...silentLogger, error: (o: object, msg?: string) => void (msg === 'policy artifact rejected' && rejected.push((o as { retryInMs: number }).retryInMs)), child: () => log };
  const holder = new PolicyHolder(log, pointerBackend(), { firstMs: 50, maxMs: 200 });
  holder.offer(artifact(1, port, bytes));
  await assert.rejects(holder.waitFor(1, 300), /no policy loaded after 300 ms/);
  assert.ok(rejected.length >= 2, `retried while the server was down: ${JSON.stringify(rejected)}`);
  assert.deepEqual(rejected.slice(0, 3), [50, 100, 200].slice(0, Math.min(3, rejected.length)), 'backoff doubles from the first delay');
  assert.ok(rejected.every((ms) => ms <= 200), 'backoff is capped');
  // The learner is back on the same address: the next retry loads version 1.
  const server = await serve(files, port);
  try {
    await holder.waitFor(1, 5000);
    const { version, release } = holder.acquire();
    assert.equal(version, 1);
    release();
    const after = rejected.length;
    await new Promise((r) => setTimeout(r, 400)); // absence window: no retry after a successful load
    assert.equal(rejected.length, after);
  } finally {
    await holder.close();
    await server.close();
  }
});

void it('the retries of a version stop once a newer one is offered', async () => {
  const bytes = exportOnnx(initialModel({ dim: DEFAULT_DIM, temperature: 1 }));
  const files = new Map([['/v2.onnx', bytes]]);
  const server = await serve(files);
  const versions: number[] = [];
  const log = { ...silentLogger, error: (o: object, msg?: string) => void (msg === 'policy artifact rejected' && versions.push((o as { policyVersion: number }).policyVersion)), child: () => log };
  const holder = new PolicyHolder(log, pointerBackend(), { firstMs: 50, maxMs: 50 });
  try {
    holder.offer(artifact(1, server.port, bytes)); // /v1.onnx is not served: 404, retried
    // Version 1 is being retried (a second refusal) before version 2 comes.
    await waitUntil('version 1 refused twice', () => (versions.length >= 2 ? true : undefined), { timeoutMs: 10_000, intervalMs: 10 });
    holder.offer(artifact(2, server.port, bytes));
    await holder.waitFor(2, 5000);
    const n = versions.length;
    await new Promise((r) => setTimeout(r, 300)); // absence window: version 1 is not retried any more
    assert.equal(versions.length, n, `version 1 retried after version 2 was offered: ${JSON.stringify(versions)}`);
    assert.ok(versions.every((v) => v === 1));
    assert.equal(holder.acquire().version, 2);
  } finally {
    await holder.close();
    await server.close();
  }
});

// The actor's own series, rendered by the prom-client meter a main binds, pass `promtool check
// metrics` (when installed; owrl's naming and format rules always) — and the checker catches a
// broken exposition, so the check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { EgressFence } from '@owrl/browser-env';
import { silentLogger } from '@owrl/core';
import { PromMeter } from '@owrl/telemetry';
import { checkMetrics, lintExposition } from '@owrl/testkit';
import { createActorMetrics } from '../src/actor-metrics.js';

void test("the actor's series pass promtool check metrics and owrl's naming rules", async () => {
  const meter = new PromMeter('actor', { defaultMetrics: false });
  const m = createActorMetrics(meter);
  m.episodes.inc({ class: 'COMPLETED', reason: 'done' });
  m.duration.observe(12.5);
  for (const phase of ['policy', 'action', 'settle', 'observe']) m.stepPhase.observe({ phase }, 0.02);
  m.busy.set(2);
  m.policyVersion.set(3);
  m.publishRetries.inc({ code: 'BUS_PUBLISH_TIMEOUT' });
  m.publishFailures.inc({ code: 'BUS_CLOSED' });
  m.trimmed.inc();
  m.tooLarge.inc();
  const r = checkMetrics(await meter.render());
  console.log(JSON.stringify({ service: 'actor', tool: r.tool, families: r.families, problems: r.problems.length }));
  assert.deepEqual(r.problems, []);
  assert.equal(r.families, 9);
});

void test("the browser fence's refusals count on the actor's meter by reason and address class", async () => {
  const meter = new PromMeter('actor', { defaultMetrics: false });
  const fence = new EgressFence({ allowHosts: [], logger: silentLogger, meter });
  const listener = await fence.open();
  try {
    // what Chromium sends a proxy: a plain request in absolute form, and a tunnel
    const ask = (line: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const s = net.connect({ host: '127.0.0.1', port: listener.port }, () => s.write(`${line}\r\nHost: x\r\n\r\n`));
        let got = '';
        s.on('data', (d) => (got += d.toString()));
        s.on('close', () => resolve(got));
        s.on('error', reject);
      });
    assert.equal(await ask('GET http://127.0.0.1:9/ HTTP/1.1'), '', 'a refused plain request is closed unanswered');
    assert.match(await ask('CONNECT 169.254.169.254:443 HTTP/1.1'), /^HTTP\/1\.1 403 /);
    assert.match(await ask('CONNECT [::ffff:10.1.2.3]:443 HTTP/1.1'), /^HTTP\/1\.1 403 /);
  } finally {
    await listener.close();
  }
  const text = await meter.render();
  const r = checkMetrics(text);
  assert.deepEqual(r.problems, []);
  const series = text.split('\n').filter((l) => l.startsWith('owrl_fence_refusals_total{'));
  assert.deepEqual(series.sort(), [
    'owrl_fence_refusals_total{reason="private_address",range="loopback",service="actor"} 1',
    'owrl_fence_refusals_total{reason="private_address",range="metadata",service="actor"} 1',
    'owrl_fence_refusals_total{reason="private_address",range="private",service="actor"} 1',
  ]);
});

void test('the metrics check finds broken expositions', () => {
  const bad = [
    '# TYPE owrl_x_count counter',
    'owrl_x_count 1',
    '# HELP owrl_lat latency',
    '# TYPE owrl_lat histogram',
    'owrl_lat_bucket{le="1"} 1',
    'owrl_lat_sum 0.5',
    '# HELP owrl_busy_total busy',
    '# TYPE owrl_busy_total gauge',
    'owrl_busy_total one',
  ].join('\n');
  const { problems } = lintExposition(bad);
  for (const want of ['owrl_x_count: no HELP', 'owrl_x_count: counter without _total', 'owrl_lat: histogram without a base unit', 'owrl_lat: no +Inf bucket', 'owrl_lat: no _sum or _count', 'owrl_busy_total: gauge ends in _total', 'unparseable sample line: owrl_busy_total one']) {
    assert.ok(problems.some((p) => p.startsWith(want)), `${want} in ${problems.join(' | ')}`);
  }
  const r = checkMetrics('# HELP owrl_a_total a\n# TYPE owrl_a_total gauge\nowrl_a_total 1\n');
  assert.ok(r.problems.length >= 1, r.problems.join(' | '));
  if (r.tool === 'promtool') assert.ok(r.problems.some((p) => p.startsWith('promtool:')), r.problems.join(' | '));
});

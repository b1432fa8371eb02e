// The bindings mains use: the prom-client meter renders the Prometheus text a scraper reads
// (worked out by hand below), and the pino logger never writes a secret.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { MeterError, Secret } from '@owrl/core';
import { CENSOR, createLogger, PromMeter, redactSecrets, startMetricsServer } from '../src/index.js';

void test('PromMeter renders counters, gauges and histograms with the service label', async () => {
  const meter = new PromMeter('svc', { defaultMetrics: false });
  const c = meter.counter({ name: 'owrl_t_episodes_total', help: 'Episodes', labelNames: ['class'] });
  c.inc({ class: 'COMPLETED' });
  c.inc({ class: 'COMPLETED' }, 2);
  c.inc({ class: 'INIT_ERROR' });
  meter.counter({ name: 'owrl_t_plain_total', help: 'Plain' }).inc(5);
  const g = meter.gauge({ name: 'owrl_t_busy_slots', help: 'Busy' });
  g.set(4);
  g.dec();
  const h = meter.histogram({ name: 'owrl_t_step_seconds', help: 'Steps', buckets: [0.1, 1] });
  for (const v of [0.05, 0.5, 0.5, 3]) h.observe(v);
  const text = await meter.render();
  const expected = [
    '# HELP owrl_t_episodes_total Episodes',
    '# TYPE owrl_t_episodes_total counter',
    'owrl_t_episodes_total{class="COMPLETED",service="svc"} 3',
    'owrl_t_episodes_total{class="INIT_ERROR",service="svc"} 1',
    '',
    '# HELP owrl_t_plain_total Plain',
    '# TYPE owrl_t_plain_total counter',
    'owrl_t_plain_total{service="svc"} 5',
    '',
    '# HELP owrl_t_busy_slots Busy',
    '# TYPE owrl_t_busy_slots gauge',
    'owrl_t_busy_slots{service="svc"} 3',
    '',
    '# HELP owrl_t_step_seconds Steps',
    '# TYPE owrl_t_step_seconds histogram',
    'owrl_t_step_seconds_bucket{le="0.1",service="svc"} 1',
    'owrl_t_step_seconds_bucket{le="1",service="svc"} 3',
    'owrl_t_step_seconds_bucket{le="+Inf",service="svc"} 4',
    'owrl_t_step_seconds_sum{service="svc"} 4.05',
    'owrl_t_step_seconds_count{service="svc"} 4',
    '',
  ].join('\n');
  assert.equal(text, expected);
  // Asking again for a metric gives the same one; a clash is refused.
  meter.counter({ name: 'owrl_t_plain_total', help: 'Plain' }).inc();
  assert.match(await meter.render(), /^owrl_t_plain_total\{service="svc"\} 6$/m);
  assert.throws(() => meter.gauge({ name: 'owrl_t_plain_total', help: 'x' }), MeterError);
  assert.throws(() => meter.counter({ name: 'owrl_t_episodes', help: 'x' }), /a counter name ends in _total/);
});

void test('the metrics server serves the meter and answers /healthz from the probe', async () => {
  const meter = new PromMeter('svc', { defaultMetrics: false });
  meter.counter({ name: 'owrl_t_hits_total', help: 'Hits' }).inc(2);
  let failing = ['nats'];
  const server = await startMetricsServer(meter, { port: 0, host: '127.0.0.1', health: () => failing });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const m = await fetch(`${base}/metrics`);
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await m.text(), /^owrl_t_hits_total\{service="svc"\} 2$/m);
    const sick = await fetch(`${base}/healthz`);
    assert.deepEqual([sick.status, await sick.text()], [503, 'unhealthy: nats\n']);
    failing = [];
    const well = await fetch(`${base}/healthz`);
    assert.deepEqual([well.status, await well.text()], [200, 'ok\n']);
    assert.equal((await fetch(`${base}/other`)).status, 404);
  } finally {
    await server.close();
  }
});

void test('the logger redacts secrets: Secret values and password/token/seed fields down to the fourth level', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (b: Buffer) => (text += b.toString()));
  const log = createLogger('svc', { destination: out, bindings: { actor: 'a1' } });
  const config = {
    nats: { servers: ['nats://h:4222'], auth: { kind: 'user-password', user: 'owrl', password: new Secret('P4ss-word-1') } },
    controlToken: 'ctl-T0ken-2',
    token: 'tok-3',
    deep: { a: { password: 'pw-4', nkeySeed: 'SUA-seed-5' } },
  };
  log.info({ config, secret: 'sec-6', authorization: 'Bearer abc-7' }, 'starting');
  log.child({ component: 'x' }).warn({ password: 'pw-8' }, 'child');
  await log.flush();
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 2);
  for (const secret of ['P4ss-word-1', 'ctl-T0ken-2', 'tok-3', 'pw-4', 'SUA-seed-5', 'sec-6', 'abc-7', 'pw-8']) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  assert.equal(lines[0]?.['service'], 'svc');
  assert.equal(lines[0]?.['actor'], 'a1');
  assert.deepEqual((lines[0]?.['config'] as { nats: unknown }).nats, { servers: ['nats://h:4222'], auth: { kind: 'user-password', user: 'owrl', password: '[redacted]' } });
});

void test('secrets are redacted in child bindings, errors, arrays and request headers, and the logged objects are left as they were', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (b: Buffer) => (text += b.toString()));
  const log = createLogger('svc', { destination: out });
  const child = log.child({ component: 'nats', token: 'child-tok-1' }).child({ auth: { password: 'grandchild-pw-2' } });
  const err = Object.assign(new Error('connect failed'), { options: { user: 'u', pass: 'err-pass-3' } });
  const fields = { err, list: [{ apiKey: 'list-key-4' }, 'x'], headers: { cookie: 'sid=cookie-5', accept: 'json', authorization: 'Basic hdr-6' }, plain: { cookie: 'kept' } };
  child.error(fields, 'failed');
  await log.flush();
  for (const secret of ['child-tok-1', 'grandchild-pw-2', 'err-pass-3', 'list-key-4', 'cookie-5', 'hdr-6']) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  const line = JSON.parse(text.trim()) as Record<string, unknown>;
  assert.deepEqual([line['component'], line['token'], line['auth']], ['nats', CENSOR, { password: CENSOR }]);
  // Still written as the error it is: its type, message and stack.
  assert.deepEqual([(line['err'] as { type: string }).type, (line['err'] as { message: string }).message], ['Error', 'connect failed']);
  assert.match((line['err'] as { stack: string }).stack, /^Error: connect failed\n/);
  assert.deepEqual((line['err'] as { options: unknown }).options, { user: 'u', pass: CENSOR });
  assert.deepEqual(line['list'], [{ apiKey: CENSOR }, 'x']);
  assert.deepEqual(line['headers'], { cookie: CENSOR, accept: 'json', authorization: CENSOR });
  // Only a request's headers lose their cookie.
  assert.deepEqual(line['plain'], { cookie: 'kept' });
  // The caller's objects are not changed.
  assert.equal(err.options.pass, 'err-pass-3');
  assert.equal(fields.headers.cookie, 'sid=cookie-5');
  assert.deepEqual(redactSecrets({ a: { b: { c: { password: 'x' } } } }), { a: { b: { c: { password: CENSOR } } } });
  const deeper = { a: { b: { c: { d: { password: 'below the searched levels' } } } } };
  assert.equal(redactSecrets(deeper), deeper);
});

void test('a log line never repeats a key: a child or a call that binds a field again overrides it once', async () => {
  const out = new PassThrough();
  let text = '';
  out.on('data', (b: Buffer) => (text += b.toString()));
  const log = createLogger('learner', { destination: out, bindings: { run: 'r1' } });
  const round = log.child({ run: 'r1', round: 3 });
  round.info({ round: 4, group: 2 }, 'group kept');
  round.child({ trajectory: 'r1/4/2/0/0', group: 2 }).warn({}, 'late');
  await log.flush();
  const raw = text.trim().split('\n');
  assert.equal(raw.length, 2);
  for (const line of raw) {
    // Every key of the raw text once (a JSON reader would silently keep the last of two).
    const keys = [...line.matchAll(/"([a-z]+)":/g)].map((m) => m[1]);
    assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], line);
  }
  const [a, b] = raw.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual([a?.['run'], a?.['round'], a?.['group'], a?.['msg']], ['r1', 4, 2, 'group kept']);
  assert.deepEqual([b?.['run'], b?.['round'], b?.['group'], b?.['trajectory']], ['r1', 3, 2, 'r1/4/2/0/0']);
});

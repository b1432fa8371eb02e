// The meter interface's conventions and its in-memory double: names carry units, label sets are
// exact, re-registration is idempotent, and the double answers with what was recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMetricSpec, MemoryMeter, MeterError, noopMeter, Secret, envSecret, envOneOf } from '../src/index.js';

void test('metric specs: counters end in _total, histograms in a unit, labels are valid and unique', () => {
  const ok = [
    () => checkMetricSpec('counter', { name: 'owrl_x_total', help: 'x' }),
    () => checkMetricSpec('gauge', { name: 'owrl_busy_slots', help: 'x', labelNames: ['a'] }),
    () => checkMetricSpec('histogram', { name: 'owrl_episode_seconds', help: 'x', buckets: [0.1, 1] }),
  ];
  for (const f of ok) f();
  const bad: Array<[() => void, RegExp]> = [
    [() => checkMetricSpec('counter', { name: 'owrl_x', help: 'x' }), /counter "owrl_x": a counter name ends in _total/],
    [() => checkMetricSpec('gauge', { name: 'owrl_x_total', help: 'x' }), /only counter names end in _total/],
    [() => checkMetricSpec('histogram', { name: 'owrl_latency', help: 'x', buckets: [1] }), /ends in its unit \(_seconds, _bytes/],
    [() => checkMetricSpec('histogram', { name: 'owrl_x_seconds', help: 'x', buckets: [1, 1] }), /buckets \[1,1\] must be finite and ascending/],
    [() => checkMetricSpec('counter', { name: 'owrl-x_total', help: 'x' }), /name must match/],
    [() => checkMetricSpec('counter', { name: 'owrl_x_total', help: 'x', labelNames: ['a', 'a'] }), /label names \["a","a"\] repeat/],
    [() => checkMetricSpec('counter', { name: 'owrl_x_total', help: 'x', labelNames: ['__a'] }), /label name "__a" is not valid/],
    [() => checkMetricSpec('counter', { name: 'owrl_x_total', help: ' ' }), /help must not be empty/],
  ];
  for (const [f, re] of bad) assert.throws(f, (e: unknown) => e instanceof MeterError && e.code === 'METER_INVALID_METRIC' && re.test(e.message));
  // The no-op meter checks too, so a library's bad name fails its unit tests.
  assert.throws(() => noopMeter.counter({ name: 'bad', help: 'x' }), MeterError);
  noopMeter.counter({ name: 'owrl_ok_total', help: 'x', labelNames: ['k'] }).inc({ k: 'v' });
});

void test('MemoryMeter records counters, gauges and histograms per label set', () => {
  const m = new MemoryMeter();
  const c = m.counter({ name: 'owrl_episodes_total', help: 'e', labelNames: ['class', 'reason'] });
  c.inc({ class: 'COMPLETED', reason: 'done' });
  c.inc({ class: 'COMPLETED', reason: 'done' }, 2);
  c.inc({ reason: 'dns', class: 'INIT_ERROR' });
  const plain = m.counter({ name: 'owrl_plain_total', help: 'p' });
  plain.inc();
  plain.inc(4);
  const g = m.gauge({ name: 'owrl_busy_slots', help: 'b' });
  g.set(3);
  g.inc();
  g.dec(2);
  const h = m.histogram({ name: 'owrl_step_seconds', help: 'h', labelNames: ['site'], buckets: [1, 2] });
  h.observe({ site: 'shop' }, 0.5);
  h.observe({ site: 'shop' }, 1.5);
  h.observe({ site: 7 }, 9);

  assert.equal(m.value('owrl_episodes_total', { class: 'COMPLETED', reason: 'done' }), 3);
  assert.equal(m.value('owrl_episodes_total', { class: 'INIT_ERROR', reason: 'dns' }), 1);
  assert.equal(m.value('owrl_episodes_total', { class: 'INIT_ERROR', reason: 'bot_wall' }), 0);
  assert.equal(m.total('owrl_episodes_total'), 4);
  assert.deepEqual(m.series('owrl_episodes_total'), [
    { labels: { class: 'COMPLETED', reason: 'done' }, value: 3 },
    { labels: { class: 'INIT_ERROR', reason: 'dns' }, value: 1 },
  ]);
  assert.equal(m.value('owrl_plain_total'), 5);
  assert.equal(m.value('owrl_busy_slots'), 2);
  assert.deepEqual(m.observations('owrl_step_seconds', { site: 'shop' }), [0.5, 1.5]);
  assert.deepEqual(m.observations('owrl_step_seconds', { site: '7' }), [9], 'numbers are label strings');
  assert.deepEqual(m.names(), ['owrl_busy_slots', 'owrl_episodes_total', 'owrl_plain_total', 'owrl_step_seconds']);
});

void test('MemoryMeter rejects wrong label sets, negative increments, clashing re-registrations and unknown names', () => {
  const m = new MemoryMeter();
  const c = m.counter({ name: 'owrl_c_total', help: 'c', labelNames: ['a'] });
  assert.strictEqual(m.counter({ name: 'owrl_c_total', help: 'other help', labelNames: ['a'] }).inc({ a: 'x' }), undefined);
  assert.equal(m.value('owrl_c_total', { a: 'x' }), 1, 'same name, kind and labels: the same metric');
  const invalid = (re: RegExp) => (e: unknown) => e instanceof MeterError && re.test(e.message);
  assert.throws(() => (c.inc as (l: object) => void)({ a: 'x', b: 'y' }), invalid(/labels \{a, b\} are not the declared \{a\}/));
  assert.throws(() => (c.inc as () => void)(), invalid(/labels a are required/));
  assert.throws(() => c.inc({ a: 'x' }, -1), invalid(/increment -1 must be a finite number >= 0/));
  assert.throws(() => m.gauge({ name: 'owrl_c_total', help: 'g' }), MeterError);
  assert.throws(() => m.counter({ name: 'owrl_c_total', help: 'c', labelNames: ['b'] }), invalid(/clashes with the counter \[a\]/));
  assert.throws(() => m.value('owrl_nothing_total'), invalid(/no counter or gauge named owrl_nothing_total \(have: owrl_c_total\)/));
  assert.throws(() => m.value('owrl_c_total'), invalid(/query labels \{\} are not the declared \{a\}/));
});

void test('a Secret never turns into its value except through reveal()', async () => {
  const s = new Secret('hunter2');
  const { inspect } = await import('node:util');
  assert.equal(s.reveal(), 'hunter2');
  assert.equal(JSON.stringify({ password: s, nested: { s } }), '{"password":"[redacted]","nested":{"s":"[redacted]"}}');
  assert.equal(String(s), '[redacted]');
  assert.equal(`${s}`, '[redacted]');
  assert.ok(!inspect({ s }).includes('hunter2'));
  assert.equal(envSecret('NATS_TOKEN', {}).isSet, false);
  assert.equal(envSecret('NATS_TOKEN', { NATS_TOKEN: 't' }).reveal(), 't');
  assert.equal(envOneOf('LEVEL', 'info', ['info', 'warn'], { LEVEL: 'warn' }), 'warn');
  assert.throws(() => envOneOf('LEVEL', 'info', ['info', 'warn'], { LEVEL: 'x' }), /LEVEL="x" must be one of info, warn/);
});

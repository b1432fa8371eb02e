// The judge's own series, rendered by the prom-client meter a main binds, pass `promtool check
// metrics` (when installed; owrl's naming and format rules always).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PromMeter } from '@owrl/telemetry';
import { checkMetrics } from '@owrl/testkit';
import { createJudgeMetrics } from '../src/judge-metrics.js';

void test("the judge's series pass promtool check metrics and owrl's naming rules", async () => {
  const meter = new PromMeter('judge', { defaultMetrics: false });
  const m = createJudgeMetrics(meter);
  m.trajectories.inc({ outcome: 'scored', source: 'verifier' });
  m.excluded.inc({ reason: 'judge:verifier_unavailable' });
  m.latency.observe(0.01);
  m.duplicates.inc();
  const r = checkMetrics(await meter.render());
  console.log(JSON.stringify({ service: 'judge', tool: r.tool, families: r.families, problems: r.problems.length }));
  assert.deepEqual(r.problems, []);
  assert.ok(r.families >= 4, String(r.families));
});

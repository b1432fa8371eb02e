// SVG charts: points land where the scales put them, labels are escaped, empty data says so,
// stacked bars stack, and tick values are round.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeXml, hbars, lineChart, stackedBars, ticks } from '../src/index.js';

const coords = (svg: string, tag: 'circle'): Array<[number, number]> =>
  [...svg.matchAll(new RegExp(`<${tag} cx="([\\d.]+)" cy="([\\d.]+)"`, 'g'))].map((m) => [Number(m[1]), Number(m[2])]);

void describe('charts', () => {
  void it('line chart: x and y scales, one path per series, a legend for several', () => {
    const svg = lineChart({ title: 'success', series: [{ name: 'all', points: [[1, 0], [2, 0.5], [3, 1]] }, { name: 'hard', points: [[1, 0], [3, 0.25]] }], yMin: 0, yMax: 1, width: 400, height: 200 });
    assert.match(svg, /^<svg /);
    assert.equal((svg.match(/<path class="series"/g) ?? []).length, 2);
    const pts = coords(svg, 'circle');
    assert.equal(pts.length, 5);
    // plot area: x 52..386, y 28..160 → (1,0) bottom-left, (3,1) top-right, (2,0.5) in the middle
    assert.deepEqual(pts[0], [52, 160]);
    assert.deepEqual(pts[1], [219, 94]);
    assert.deepEqual(pts[2], [386, 28]);
    assert.match(svg, /data-series="hard"/);
    assert.match(svg, />hard</, 'legend names the second series');
  });

  void it('a legend that does not fit beside the title wraps below it, names every series and moves the plot down', () => {
    const names = ['COMPLETED', 'STEP_BUDGET_EXHAUSTED', 'FORMAT_ERROR', 'GENERATION_LIMIT', 'ENV_ERROR', 'SANDBOX_ERROR'];
    const svg = stackedBars({ title: 'Terminations per round', categories: [1], series: names.map((name) => ({ name, values: [1] })), height: 240 });
    const items = [...svg.matchAll(/<g class="legend-item"><rect x="([\d.]+)" y="([\d.]+)"[^>]*\/><text [^>]*>([^<]+)<\/text><\/g>/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]), name: m[3] }));
    assert.deepEqual(items.map((i) => i.name), names, 'every series is in the legend');
    const rows = [...new Set(items.map((i) => i.y))];
    assert.ok(rows.length >= 2, `wrapped onto ${rows.length} rows`);
    // Within a row, an item starts after the previous one's estimated end; rows below the title start at the left margin.
    for (const row of rows.slice(1)) assert.equal(Math.min(...items.filter((i) => i.y === row).map((i) => i.x)), 52);
    const first = items[0]!;
    assert.ok(first.x >= 52 + 150, `the first row starts after the title (x=${first.x})`);
    // The top of the stack (6 of 6) sits below the last legend row.
    const tops = [...svg.matchAll(/<rect class="bar" [^>]* y="([\d.]+)"/g)].map((m) => Number(m[1]));
    assert.ok(Math.min(...tops) > Math.max(...rows) + 10, `plot top ${Math.min(...tops)} below legend rows ${rows.join(',')}`);
  });

  void it('escapes labels and says when there is no data', () => {
    const svg = lineChart({ title: '<script>"x"</script>', series: [{ name: 'a&b', points: [[1, 1]] }] });
    assert.ok(!svg.includes('<script>'));
    assert.match(svg, /&lt;script&gt;&quot;x&quot;/);
    assert.match(lineChart({ title: 't', series: [] }), /no data yet/);
    assert.match(stackedBars({ title: 't', categories: [], series: [] }), /no data yet/);
    assert.match(hbars({ title: 't', bars: [] }), /no data yet/);
    assert.equal(escapeXml(`<&>"'`), '&lt;&amp;&gt;&quot;&#39;');
  });

  void it('stacked bars stack per category with heights proportional to the counts', () => {
    const svg = stackedBars({ title: 'terminations', categories: [1, 2], series: [{ name: 'COMPLETED', values: [3, 1] }, { name: 'ENV_ERROR', values: [1, 0] }], height: 240 });
    const bars = [...svg.matchAll(/<rect class="bar" data-series="([^"]+)" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"/g)].map((m) => [m[1], Number(m[2]), Number(m[3])] as const);
    assert.equal(bars.length, 3, 'zero counts draw nothing');
    const [c1, e1, c2] = bars;
    // max total 4 → plot height 172: 3 → 129, 1 → 43; the second layer sits on top of the first
    assert.deepEqual([c1?.[0], c1?.[2], e1?.[0], e1?.[2], c2?.[2]], ['COMPLETED', 129, 'ENV_ERROR', 43, 43]);
    assert.equal(Math.round((e1?.[1] ?? 0) + (e1?.[2] ?? 0)), Math.round(c1?.[1] ?? -1));
  });

  void it('horizontal bars scale to the maximum and format values', () => {
    const svg = hbars({ title: 'by site', bars: [{ label: 'shop', value: 0.5 }, { label: 'wiki', value: 1 }], max: 1, format: (v) => `${v * 100}%`, width: 400 });
    const widths = [...svg.matchAll(/data-label="(\w+)" x="[\d.]+" y="[\d.]+" width="([\d.]+)"/g)].map((m) => [m[1], Number(m[2])]);
    assert.deepEqual(widths, [['shop', 75], ['wiki', 150]]);
    assert.match(svg, />50%</);
  });

  void it('ticks are round numbers covering the range', () => {
    assert.deepEqual(ticks(0, 1), [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(ticks(0, 37), [0, 10, 20, 30]);
    assert.deepEqual(ticks(5, 5), [5]);
  });
});

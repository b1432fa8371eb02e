// @owrl/charts: small, dependency-free SVG charts for the console and the run report: a line
// chart (several series over rounds), stacked bars (counts by cause per round) and horizontal bars
// (a rate per site or difficulty). Pure functions from data to an SVG string; every label is
// escaped. The same chart renders in a browser page and in a standalone HTML report.

export const PALETTE = ['#2f6fde', '#e0533d', '#2ea36b', '#b05bd6', '#e59a1c', '#17a2b8', '#7a7a7a', '#c2185b', '#5d4037', '#00897b'];

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export interface Series {
  name: string;
  /** [x, y] points; non-finite y values break the line. */
  points: Array<[number, number]>;
  color?: string;
}

export interface LineChartOptions {
  title: string;
  series: Series[];
  xLabel?: string;
  yLabel?: string;
  /** Default: the data's minimum (0 when all values are >= 0). */
  yMin?: number;
  /** Default: the data's maximum. */
  yMax?: number;
  width?: number;
  height?: number;
  /** Format of y tick labels; default up to 3 significant digits. */
  yFormat?: (v: number) => string;
  /** id attribute of the <svg>. */
  id?: string;
}

const M = { left: 52, right: 14, top: 28, bottom: 40 };

function fmt(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1000) return `${Math.round(v / 100) / 10}k`;
  return String(Number(v.toPrecision(3)));
}

/** Rounded tick values covering [lo, hi] (about `n` of them). */
export function ticks(lo: number, hi: number, n = 5): number[] {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? raw);
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function frame(o: { title: string; width: number; height: number; id?: string | undefined }, body: string): string {
  const id = o.id ? ` id="${escapeXml(o.id)}"` : '';
  return (
    `<svg xmlns="http://www.w3.org/2000/svg"${id} class="chart" viewBox="0 0 ${o.width} ${o.height}" width="${o.width}" height="${o.height}" role="img" aria-label="${escapeXml(o.title)}" font-family="system-ui, sans-serif" font-size="11">` +
    `<title>${escapeXml(o.title)}</title><rect width="${o.width}" height="${o.height}" fill="#fff"/>` +
    `<text class="chart-title" x="${M.left}" y="16" font-size="13" font-weight="600" fill="#222">${escapeXml(o.title)}</text>${body}</svg>`
  );
}

/**
 * Rendered width of `s` in a sans-serif font of `size` px, estimated on the wide side (capitals,
 * digits and underscores are wider than lower case), so labels placed after it do not overlap it.
 */
export function textWidth(s: string, size: number, bold = false): number {
  let em = 0;
  for (const c of s) {
    if ('MWmw@%'.includes(c)) em += 0.9;
    else if ('ijlt.,:;|!\' ()[]'.includes(c)) em += 0.36;
    else if (/[A-Z0-9_#&]/.test(c)) em += 0.72;
    else em += 0.6;
  }
  return em * size * (bold ? 1.1 : 1);
}

const LEGEND_NAME_MAX = 24;
const LEGEND_ROW = 15;

/**
 * The legend: its first row after the title, further rows (when the names do not fit beside the
 * title) below it; `extra` is how much lower the plot must start so no row overlaps it.
 */
function legend(names: Array<{ name: string; color: string }>, title: string, width: number): { svg: string; extra: number } {
  const maxX = width - M.right;
  let x = M.left + Math.max(120, textWidth(title, 13, true) + 18);
  let y = 16;
  let out = '';
  for (const n of names) {
    const label = n.name.slice(0, LEGEND_NAME_MAX);
    const w = 13 + textWidth(label, 11);
    if (x + w > maxX && x > M.left) {
      x = M.left;
      y += LEGEND_ROW;
    }
    out += `<g class="legend-item"><rect x="${r(x)}" y="${y - 8}" width="10" height="10" fill="${n.color}"/><text x="${r(x + 13)}" y="${y}" fill="#333">${escapeXml(label)}</text></g>`;
    x += w + 10;
  }
  return { svg: out, extra: y - 16 };
}

function noData(o: { title: string; width: number; height: number; id?: string | undefined }): string {
  return frame(o, `<text x="${o.width / 2}" y="${o.height / 2}" text-anchor="middle" fill="#888">no data yet</text>`);
}

/** A line chart with markers, axes, grid and a legend. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 560;
  const height = o.height ?? 240;
  const f = { title: o.title, width, height, id: o.id };
  const all = o.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (all.length === 0) return noData(f);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  let x0 = Math.min(...xs);
  let x1 = Math.max(...xs);
  if (x0 === x1) {
    x0 -= 1;
    x1 += 1;
  }
  let y0 = o.yMin ?? Math.min(0, ...ys);
  let y1 = o.yMax ?? Math.max(...ys);
  if (!(y1 > y0)) {
    y1 = y0 + 1;
    if (o.yMin === undefined) y0 = Math.min(y0, y1 - 1);
  }
  const named = o.series.map((sr, i) => ({ name: sr.name, color: sr.color ?? PALETTE[i % PALETTE.length] ?? '#333' }));
  const leg = o.series.length > 1 ? legend(named, o.title, width) : { svg: '', extra: 0 };
  const top = M.top + leg.extra;
  const pw = width - M.left - M.right;
  const ph = height - top - M.bottom;
  const sx = (x: number): number => M.left + ((x - x0) / (x1 - x0)) * pw;
  const sy = (y: number): number => top + ph - ((y - y0) / (y1 - y0)) * ph;
  const yf = o.yFormat ?? fmt;
  let body = '';
  for (const t of ticks(y0, y1)) {
    body += `<line x1="${M.left}" x2="${width - M.right}" y1="${r(sy(t))}" y2="${r(sy(t))}" stroke="#eee"/><text x="${M.left - 5}" y="${r(sy(t)) + 4}" text-anchor="end" fill="#555">${escapeXml(yf(t))}</text>`;
  }
  for (const t of ticks(x0, x1, Math.min(8, Math.max(1, Math.round(x1 - x0))))) {
    body += `<text x="${r(sx(t))}" y="${top + ph + 14}" text-anchor="middle" fill="#555">${escapeXml(fmt(t))}</text>`;
  }
  body += `<line x1="${M.left}" x2="${M.left}" y1="${top}" y2="${top + ph}" stroke="#999"/><line x1="${M.left}" x2="${width - M.right}" y1="${top + ph}" y2="${top + ph}" stroke="#999"/>`;
  if (o.xLabel) body += `<text x="${M.left + pw / 2}" y="${height - 4}" text-anchor="middle" fill="#333">${escapeXml(o.xLabel)}</text>`;
  if (o.yLabel) body += `<text transform="translate(12 ${top + ph / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(o.yLabel)}</text>`;
  o.series.forEach((s, i) => {
    const color = named[i]?.color ?? '#333';
    const pts = [...s.points].sort((a, b) => a[0] - b[0]);
    let path = '';
    let pen = false;
    for (const [x, y] of pts) {
      if (!Number.isFinite(y) || !Number.isFinite(x)) {
        pen = false;
        continue;
      }
      path += `${pen ? 'L' : 'M'}${r(sx(x))} ${r(sy(y))}`;
      pen = true;
    }
    body += `<path class="series" data-series="${escapeXml(s.name)}" d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`;
    for (const [x, y] of pts) {
      if (Number.isFinite(x) && Number.isFinite(y)) {
        body += `<circle cx="${r(sx(x))}" cy="${r(sy(y))}" r="2.5" fill="${color}"><title>${escapeXml(`${s.name}: ${fmt(x)} → ${yf(y)}`)}</title></circle>`;
      }
    }
  });
  body += leg.svg;
  return frame(f, body);
}

export interface StackedBarsOptions {
  title: string;
  /** One bar per category (e.g. round numbers). */
  categories: Array<string | number>;
  /** One stack layer per series; values[i] belongs to categories[i]. */
  series: Array<{ name: string; values: number[]; color?: string }>;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
  id?: string;
}

/** Stacked vertical bars (counts by cause per category), with a legend. */
export function stackedBars(o: StackedBarsOptions): string {
  const width = o.width ?? 560;
  const height = o.height ?? 240;
  const f = { title: o.title, width, height, id: o.id };
  const n = o.categories.length;
  const totals = o.categories.map((_, i) => o.series.reduce((a, s) => a + Math.max(0, s.values[i] ?? 0), 0));
  const max = Math.max(0, ...totals);
  if (n === 0 || max === 0) return noData(f);
  const named: Array<{ name: string; color: string }> = o.series.map((s, i) => ({ name: s.name, color: s.color ?? PALETTE[i % PALETTE.length] ?? '#333' }));
  const leg = legend(named, o.title, width);
  const top = M.top + leg.extra;
  const pw = width - M.left - M.right;
  const ph = height - top - M.bottom;
  const slot = pw / n;
  const bw = Math.max(1, Math.min(40, slot * 0.8));
  const sy = (v: number): number => (v / max) * ph;
  let body = '';
  for (const t of ticks(0, max)) {
    const y = top + ph - sy(t);
    body += `<line x1="${M.left}" x2="${width - M.right}" y1="${r(y)}" y2="${r(y)}" stroke="#eee"/><text x="${M.left - 5}" y="${r(y) + 4}" text-anchor="end" fill="#555">${fmt(t)}</text>`;
  }
  const every = Math.max(1, Math.ceil(n / 12));
  o.categories.forEach((c, i) => {
    const x = M.left + slot * i + (slot - bw) / 2;
    let base = top + ph;
    o.series.forEach((s, k) => {
      const v = Math.max(0, s.values[i] ?? 0);
      if (v === 0) return;
      const h = sy(v);
      base -= h;
      body += `<rect class="bar" data-series="${escapeXml(s.name)}" x="${r(x)}" y="${r(base)}" width="${r(bw)}" height="${r(h)}" fill="${named[k]?.color ?? '#333'}"><title>${escapeXml(`${String(c)} ${s.name}: ${v}`)}</title></rect>`;
    });
    if (i % every === 0) body += `<text x="${r(x + bw / 2)}" y="${top + ph + 14}" text-anchor="middle" fill="#555">${escapeXml(String(c))}</text>`;
  });
  body += `<line x1="${M.left}" x2="${width - M.right}" y1="${top + ph}" y2="${top + ph}" stroke="#999"/>`;
  if (o.xLabel) body += `<text x="${M.left + pw / 2}" y="${height - 4}" text-anchor="middle" fill="#333">${escapeXml(o.xLabel)}</text>`;
  if (o.yLabel) body += `<text transform="translate(12 ${top + ph / 2}) rotate(-90)" text-anchor="middle" fill="#333">${escapeXml(o.yLabel)}</text>`;
  body += leg.svg;
  return frame(f, body);
}

export interface HBarsOptions {
  title: string;
  bars: Array<{ label: string; value: number; note?: string }>;
  /** Scale maximum; default the largest value. */
  max?: number;
  format?: (v: number) => string;
  width?: number;
  id?: string;
}

/** Horizontal bars with a label and a value each (e.g. success rate per site). */
export function hbars(o: HBarsOptions): string {
  const width = o.width ?? 560;
  const row = 20;
  const height = 34 + Math.max(1, o.bars.length) * row;
  const f = { title: o.title, width, height, id: o.id };
  if (o.bars.length === 0) return noData({ ...f, height: 80 });
  const max = o.max ?? Math.max(...o.bars.map((b) => b.value), 0);
  const labelW = 140;
  const pw = width - labelW - 110;
  const vf = o.format ?? fmt;
  let body = '';
  o.bars.forEach((b, i) => {
    const y = 28 + i * row;
    const w = max > 0 ? (Math.max(0, b.value) / max) * pw : 0;
    body +=
      `<text x="${labelW - 6}" y="${y + 13}" text-anchor="end" fill="#333">${escapeXml(b.label.slice(0, 22))}</text>` +
      `<rect class="bar" x="${labelW}" y="${y + 2}" width="${r(pw)}" height="${row - 6}" fill="#f0f0f0"/>` +
      `<rect class="bar" data-label="${escapeXml(b.label)}" x="${labelW}" y="${y + 2}" width="${r(w)}" height="${row - 6}" fill="${PALETTE[0]}"/>` +
      `<text x="${labelW + pw + 6}" y="${y + 13}" fill="#333">${escapeXml(vf(b.value))}${b.note ? ` <tspan fill="#888">${escapeXml(b.note)}</tspan>` : ''}</text>`;
  });
  return frame(f, body);
}

function r(v: number): number {
  return Math.round(v * 10) / 10;
}

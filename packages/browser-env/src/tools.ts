// Execution of one tool call on the active tab (DESIGN §5 Tools): resolve the target (point or
// element id), act through Playwright's mouse and keyboard, wait for the page's reaction, and
// classify the effects from a before/after snapshot. Failures the agent can learn from come back
// as a failed ToolCallResult; the episode ends only through EpisodeEnd (crash, abort, ...).
import type { ToolCallSpec } from '@owrl/core';
import type { Page } from 'playwright-core';
import { bounded, msSince, settleWithin, sleep } from './async-util.js';
import { computeEffects, doneEffect, errorEffect, type CallIntent } from './effects.js';
import { EpisodeEnd, ToolCallError } from './errors.js';
import type { EpisodeSession } from './episode-session.js';
import { checkUrl } from './net-policy.js';
import { callInjected } from './injected-script.js';
import type { RawSnapshot } from './page-snapshot.js';
import { parseCall, scrollPixels, type ParsedCall, type Target } from './tool-args.js';
import type { EffectRecord, ToolCallResult } from './types.js';

export interface ExecContext {
  session: EpisodeSession;
  viewport: { width: number; height: number };
  allowHosts: readonly string[];
  toolCallMs: number;
  /** performance.now() deadline of the whole step. */
  stepDeadline: number;
  signal: AbortSignal;
}

/** Messages longer than this are inserted at once instead of typed key by key. */
const TYPE_MAX_CHARS = 120;
const SNAPSHOT_MAX_MS = 3000;

async function snapshot(page: Page, probe: [number, number] | null, ms: number): Promise<RawSnapshot | null> {
  if (page.isClosed()) return null;
  const first = await settleWithin(callInjected(page, 'snapshot', probe), ms, null);
  if (first || page.isClosed()) return first;
  // the document was being replaced: try once more on the new one
  await settleWithin(page.waitForLoadState('domcontentloaded', { timeout: ms }), ms, undefined);
  return settleWithin(callInjected(page, 'snapshot', probe), ms, null);
}

async function resolvePoint(pts: Array<[number, number]>, page: Page, t: Target, vp: { width: number; height: number }): Promise<[number, number]> {
  const p = await targetPoint(page, t, vp);
  pts.push(p);
  return p;
}

async function targetPoint(page: Page, t: Target, vp: { width: number; height: number }): Promise<[number, number]> {
  if (t.kind === 'point') {
    if (t.x < 0 || t.y < 0 || t.x >= vp.width || t.y >= vp.height) {
      throw new ToolCallError('out_of_viewport', `point [${t.x}, ${t.y}] is outside the ${vp.width}x${vp.height} viewport`, { x: String(t.x), y: String(t.y) });
    }
    return [t.x, t.y];
  }
  const r = await callInjected(page, 'elementTarget', { id: t.id, scroll: true });
  if (!r.found) throw new ToolCallError('element_not_found', `element ${t.id} is not on the page (ids come from the latest observation)`, { element_id: String(t.id) });
  if (!r.inViewport) throw new ToolCallError('out_of_viewport', `element ${t.id} could not be scrolled into the viewport`, { element_id: String(t.id) });
  return [Math.round(r.x), Math.round(r.y)];
}

function intentOf(c: ParsedCall): CallIntent {
  if (c.tool === 'write') return { tool: 'write', expected: c.message };
  if (c.tool === 'scroll') return { tool: 'scroll', direction: c.direction };
  return { tool: c.tool };
}

/** Performs the call; every viewport point it acts on is appended to `pts` (for the trajectory viewer). */
async function act(x: ExecContext, c: ParsedCall, deadline: number, pts: Array<[number, number]>): Promise<void> {
  const s = x.session;
  const page = s.active;
  const left = (): number => Math.max(1, deadline - performance.now());
  switch (c.tool) {
    case 'click': {
      const [px, py] = await resolvePoint(pts, page, c.target, x.viewport);
      await page.mouse.click(px, py, { button: c.button, clickCount: c.clicks });
      return;
    }
    case 'hover': {
      const [px, py] = await resolvePoint(pts, page, c.target, x.viewport);
      await page.mouse.move(px, py);
      return;
    }
    case 'drag': {
      const [sx, sy] = await resolvePoint(pts, page, c.start, x.viewport);
      const [ex, ey] = await resolvePoint(pts, page, c.end, x.viewport);
      await page.mouse.move(sx, sy);
      await page.mouse.down();
      await page.mouse.move(ex, ey, { steps: c.steps });
      await page.mouse.up();
      return;
    }
    case 'write': {
      if (c.target?.kind === 'element') {
        const focused = await callInjected(page, 'focusElement', c.target.id);
        if (!focused) {
          const [px, py] = await resolvePoint(pts, page, c.target, x.viewport);
          await page.mouse.click(px, py);
        }
      } else if (c.target) {
        const [px, py] = await resolvePoint(pts, page, c.target, x.viewport);
        await page.mouse.click(px, py);
      }
      const f = await callInjected(page, 'focusedField');
      if (f.select) {
        const chosen = await callInjected(page, 'selectOption', c.message);
        if (chosen === null) throw new ToolCallError('option_not_found', `no option of the focused list matches ${JSON.stringify(c.message.slice(0, 60))}`);
        return;
      }
      if (!f.editable) {
        throw new ToolCallError('not_editable', f.tag ? `the focused <${f.tag}> does not take text: click a text field first` : 'no text field has focus: click one first or pass element_id');
      }
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      if (c.message.length <= TYPE_MAX_CHARS) await page.keyboard.type(c.message);
      else await page.keyboard.insertText(c.message);
      return;
    }
    case 'press_keys':
      for (let i = 0; i < c.presses; i++) {
        if (c.hotkey) await page.keyboard.press(c.keys.join('+'));
        else for (const k of c.keys) await page.keyboard.press(k);
      }
      return;
    case 'scroll': {
      const [px, py] = c.target ? await resolvePoint(pts, page, c.target, x.viewport) : [Math.round(x.viewport.width / 2), Math.round(x.viewport.height / 2)];
      const vertical = c.direction === 'up' || c.direction === 'down';
      const px2 = scrollPixels(c.amount, vertical ? x.viewport.height : x.viewport.width);
      const sign = c.direction === 'down' || c.direction === 'right' ? 1 : -1;
      await page.mouse.move(px, py);
      await page.mouse.wheel(vertical ? 0 : sign * px2, vertical ? sign * px2 : 0);
      return;
    }
    case 'wait':
      await sleep(Math.min(c.seconds * 1000, Math.max(0, x.stepDeadline - performance.now() - 200)), x.signal);
      return;
    case 'goto_url': {
      const v = checkUrl(c.url, x.allowHosts);
      if (!v.ok) {
        if (v.reason === 'private_address') throw new ToolCallError('blocked', `${v.host} is a private address`, { reason: 'private_address', url: c.url });
        throw new ToolCallError('bad_url', `goto_url takes http(s) URLs only: ${v.detail}`, { url: c.url });
      }
      const started = performance.now();
      try {
        await page.goto(c.url, { waitUntil: 'commit', timeout: left() });
      } catch (e) {
        const f = await s.navFailure(page, (e as Error).message, (e as Error).name === 'TimeoutError', started);
        if (f.code === 'timeout') throw new ToolCallError('timeout', `loading ${c.url} timed out`, { url: c.url }, { cause: e });
        if (!s.callHasNavOutcome() && f.code !== 'aborted') throw new ToolCallError(f.code, `loading ${c.url} failed`, { url: c.url }, { cause: e });
      }
      return;
    }
    case 'go_back': {
      const before = page.url();
      const started = performance.now();
      let resp;
      try {
        resp = await page.goBack({ waitUntil: 'commit', timeout: left() });
      } catch (e) {
        const f = await s.navFailure(page, (e as Error).message, (e as Error).name === 'TimeoutError', started);
        if (f.code === 'timeout') throw new ToolCallError('timeout', 'going back timed out', {}, { cause: e });
        if (!s.callHasNavOutcome()) throw new ToolCallError(f.code, 'going back failed', {}, { cause: e });
        return;
      }
      if (resp === null && page.url() === before) throw new ToolCallError('no_history', 'there is no previous page in this tab');
      return;
    }
    case 'new_tab': {
      const p = await s.context.newPage();
      s.setActive(p);
      return;
    }
    case 'switch_tab': {
      const pages = s.pages();
      const p = pages[c.index];
      if (!p) throw new ToolCallError('bad_args', `tab_index=${c.index} is out of range (${pages.length} tabs open)`, { param: 'tab_index' });
      s.setActive(p);
      await p.bringToFront();
      return;
    }
    case 'close_tab': {
      const pages = s.pages();
      if (pages.length <= 1) throw new ToolCallError('last_tab', 'the last tab cannot be closed');
      await page.close({ runBeforeUnload: false });
      const rest = s.pages();
      const next = rest[rest.length - 1];
      if (next) {
        s.setActive(next);
        await next.bringToFront();
      }
      return;
    }
    case 'done':
      return;
  }
}

function isTargetClosed(e: unknown): boolean {
  return /Target (page, context or browser )?(has been )?closed|browser has disconnected|Browser has been closed|Page crashed/i.test(String((e as Error)?.message ?? e));
}

/**
 * Runs one call and returns its result. `done` is returned without touching the page.
 * @throws EpisodeEnd when the episode cannot go on (abort, crash of the page, context or browser).
 */
export async function executeCall(x: ExecContext, call: ToolCallSpec): Promise<ToolCallResult> {
  const t0 = performance.now();
  let parsed: ParsedCall;
  try {
    parsed = parseCall(call);
  } catch (e) {
    const err = e as ToolCallError;
    return { call, ok: false, errorCode: err.code, effects: [errorEffect(err.code, err.message, err.evidence)], latencyMs: msSince(t0) };
  }
  if (parsed.tool === 'done') return { call, ok: true, errorCode: '', effects: [doneEffect(parsed.response)], latencyMs: msSince(t0) };

  const s = x.session;
  const deadline = parsed.tool === 'wait' ? x.stepDeadline : Math.min(t0 + x.toolCallMs, x.stepDeadline);
  // which budget a timeout of this call exhausts: its own (the agent sees it) or the step's (fatal)
  const limit = deadline >= x.stepDeadline ? 'step' : 'tool_call';
  const probe: [number, number] | null =
    parsed.tool === 'scroll' ? (parsed.target?.kind === 'point' ? [parsed.target.x, parsed.target.y] : [Math.round(x.viewport.width / 2), Math.round(x.viewport.height / 2)]) : null;
  const points: Array<[number, number]> = [];
  const mark = s.beginCall();
  const before = await snapshot(s.active, probe, Math.min(SNAPSHOT_MAX_MS, Math.max(1, deadline - performance.now())));
  let failure: ToolCallError | null = null;
  try {
    const timeout = (): ToolCallError => new ToolCallError('timeout', `${parsed.tool} did not finish in ${Math.round(deadline - t0)} ms`);
    await bounded(act(x, parsed, deadline, points), deadline - performance.now(), timeout, x.signal);
    await s.awaitReaction(mark, deadline);
  } catch (e) {
    if (x.signal.aborted) throw x.signal.reason;
    if (e instanceof EpisodeEnd) throw e;
    if (s.crashedPage === mark.page) throw new EpisodeEnd('ENV_ERROR', 'page_crash', `the page crashed during ${parsed.tool}`, { cause: e });
    if (s.contextClosed) throw new EpisodeEnd('SANDBOX_ERROR', 'context_crash', `the browser context closed during ${parsed.tool}`, { cause: e });
    if (e instanceof ToolCallError) failure = e;
    else if (isTargetClosed(e) && mark.page.isClosed() && s.pages().length > 0) failure = null; // the page closed itself
    else failure = new ToolCallError('action_failed', (e as Error)?.message ?? String(e), {}, { cause: e });
    if (failure?.code === 'timeout') failure.evidence['limit'] = limit;
  }
  if (s.crashedPage === s.active) throw new EpisodeEnd('ENV_ERROR', 'page_crash', `the page crashed after ${parsed.tool}`);
  const after = await snapshot(s.active, probe, Math.min(SNAPSHOT_MAX_MS, Math.max(500, deadline - performance.now())));
  const ev = s.endCall();
  let effects: EffectRecord[] = computeEffects(intentOf(parsed), before, after, ev);
  let errorCode = '';
  if (failure) {
    errorCode = failure.code;
    const fe: EffectRecord =
      failure.code === 'blocked'
        ? { kind: 'blocked', line: `blocked: ${failure.message}`, evidence: { ...failure.evidence } }
        : errorEffect(failure.code, failure.message, failure.evidence);
    effects = [fe, ...effects.filter((e) => e.kind !== 'no_effect')];
  } else if (ev.navError && ev.navError !== 'aborted') {
    errorCode = ev.navError;
  } else if (ev.blocked.length > 0) {
    errorCode = 'blocked';
  } else if (effects.some((e) => e.kind === 'blocked' && (e.evidence['reason'] === 'captcha' || e.evidence['reason'] === 'interstitial'))) {
    errorCode = 'bot_wall'; // before the status: a challenge page is often served with 403 or 503
  } else if (ev.navStatus >= 500) {
    errorCode = 'http_5xx';
  }
  return { call, ok: errorCode === '', errorCode, effects, latencyMs: msSince(t0), ...(points.length > 0 ? { points } : {}) };
}

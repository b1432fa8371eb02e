// Effect classification (DESIGN §5 Feedback): from a before/after snapshot of the page and the
// events seen during one tool call, the typed effects with evidence and their one-line renderings.
// Pure logic: the I/O that gathers the inputs lives in tools.ts.
import type { ToolName } from '@owrl/core';
import { detectWall } from './bot-wall.js';
import { classifyHttpStatus } from './net-errors.js';
import type { RawSnapshot } from './page-snapshot.js';
import type { EffectKindName, EffectRecord } from './types.js';

/** What happened around one call, gathered by the executor. */
export interface CallEvents {
  tabsBefore: number;
  tabsAfter: number;
  /** URLs of tabs opened during the call. */
  newTabs: string[];
  dialogs: { type: string; message: string }[];
  downloads: { filename: string; url: string }[];
  /** Main-frame navigations the fence refused (`range`: the class of the refused address, '' when none). */
  blocked: { url: string; reason: string; range?: string }[];
  /**
   * Other connections of the episode's pages, frames and workers the fence refused (fetch, XHR,
   * subresources, WebSockets; a tunnel's only by host:port when no page request names its URL).
   */
  blockedRequests: { url: string; reason: string; range?: string }[];
  /** File choosers the page opened (always dismissed: the agent cannot upload files). */
  fileChoosers: { multiple: boolean }[];
  /** Status of a main-frame document response during the call (0 when none). */
  navStatus: number;
  /** Reason code of a failed main-frame navigation ('' when none). */
  navError: string;
  navErrorUrl: string;
  /** The active tab changed (new tab followed, switch_tab, close_tab). */
  activeChanged: boolean;
}

export interface CallIntent {
  tool: ToolName;
  /** write: the text typed (after the field was cleared). */
  expected?: string;
  /** scroll: direction asked. */
  direction?: 'up' | 'down' | 'left' | 'right';
}

export function emptyEvents(tabs: number): CallEvents {
  return {
    tabsBefore: tabs,
    tabsAfter: tabs,
    newTabs: [],
    dialogs: [],
    downloads: [],
    blocked: [],
    blockedRequests: [],
    fileChoosers: [],
    navStatus: 0,
    navError: '',
    navErrorUrl: '',
    activeChanged: false,
  };
}

function q(s: string, n = 60): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > n ? t.slice(0, n - 1) + '…' : t);
}

/** URL as shown to the model: path only when the origin did not change. */
export function shortUrl(url: string, relativeTo = ''): string {
  try {
    const u = new URL(url);
    if (relativeTo) {
      const b = new URL(relativeTo);
      if (b.origin === u.origin) return (u.pathname + u.search + u.hash).slice(0, 160) || '/';
    }
    return u.href.slice(0, 160);
  } catch {
    return url.slice(0, 160);
  }
}

function fx(kind: EffectKindName, line: string, evidence: Record<string, string> = {}): EffectRecord {
  return { kind, line, evidence };
}

/** Counts of signatures present more often after than before (added) and vice versa (removed). */
export function multisetDiff(before: readonly number[], after: readonly number[]): { added: number; removed: number } {
  const m = new Map<number, number>();
  for (const s of before) m.set(s, (m.get(s) ?? 0) + 1);
  for (const s of after) m.set(s, (m.get(s) ?? 0) - 1);
  let added = 0;
  let removed = 0;
  for (const v of m.values()) {
    if (v < 0) added -= v;
    else removed += v;
  }
  return { added, removed };
}

function fieldName(f: { role: string; name: string }): string {
  return f.name ? f.name : f.role;
}

/**
 * Effects of one call. `after` is null when the page could not be snapshotted afterwards (it
 * closed or crashed); `before` is null when the call started without a page.
 */
export function computeEffects(intent: CallIntent, before: RawSnapshot | null, after: RawSnapshot | null, ev: CallEvents): EffectRecord[] {
  const out: EffectRecord[] = [];
  for (const b of ev.blocked) {
    out.push(fx('blocked', `blocked: ${shortUrl(b.url)} (${b.reason.replace(/_/g, ' ')})`, { reason: b.reason, url: b.url, ...(b.range ? { range: b.range } : {}) }));
  }
  const br = ev.blockedRequests[0];
  if (br) {
    const more = ev.blockedRequests.length > 1 ? ` and ${ev.blockedRequests.length - 1} more` : '';
    out.push(
      fx('blocked', `blocked: page request to ${shortUrl(br.url)} (${br.reason.replace(/_/g, ' ')})${more}`, {
        reason: br.reason,
        url: br.url,
        request: 'subresource',
        count: String(ev.blockedRequests.length),
        ...(br.range ? { range: br.range } : {}),
      }),
    );
  }
  if (ev.navError && ev.navError !== 'blocked' && ev.navError !== 'aborted') {
    out.push(fx('error', `error: ${ev.navError} loading ${shortUrl(ev.navErrorUrl)}`, { code: ev.navError, url: ev.navErrorUrl }));
  }
  const urlChanged = !!(before && after && before.url !== after.url) || (ev.activeChanged && !!after);
  if (after && before && before.url !== after.url && !ev.activeChanged) {
    out.push(fx('navigated', `navigated to ${shortUrl(after.url, before.url)}`, { url_before: before.url, url_after: after.url }));
  }
  if (ev.tabsAfter > ev.tabsBefore) {
    const url = ev.newTabs[ev.newTabs.length - 1] ?? after?.url ?? '';
    out.push(fx('new_tab', `new_tab ${shortUrl(url)} opened (tab ${ev.tabsAfter - 1}, now active)`, { url, tabs: String(ev.tabsAfter) }));
  } else if (ev.tabsAfter < ev.tabsBefore) {
    out.push(fx('tab_closed', `tab_closed (${ev.tabsAfter} open${after ? `, active: ${shortUrl(after.url)}` : ''})`, { tabs: String(ev.tabsAfter) }));
  } else if (ev.activeChanged && after) {
    out.push(fx('navigated', `switched to tab showing ${shortUrl(after.url)}`, { url_before: before?.url ?? '', url_after: after.url }));
  }
  const status = ev.navStatus;
  const wallAfter = after ? detectWall(after.wall) : null;
  const wallBefore = before && !urlChanged ? detectWall(before.wall) : null;
  const newWall = after && wallAfter && !wallBefore ? wallAfter : null;
  // a challenge page served with 403/429/503 is a wall, not a server error: one effect says so
  const sc = newWall ? '' : classifyHttpStatus(status);
  if (sc === 'http_5xx') out.push(fx('error', `error: HTTP ${status} on ${shortUrl(after?.url ?? '')}`, { code: 'http_5xx', status: String(status) }));
  else if (sc === 'http_403' || sc === 'rate_limited') out.push(fx('blocked', `blocked: HTTP ${status} on ${shortUrl(after?.url ?? '')}`, { reason: 'http_status', status: String(status) }));
  else if (sc === 'http_4xx') out.push(fx('error', `error: HTTP ${status} on ${shortUrl(after?.url ?? '')}`, { code: 'http_4xx', status: String(status) }));
  if (after && newWall) {
    const evidence: Record<string, string> = { reason: newWall.kind, marker: newWall.marker };
    if (status) evidence['status'] = String(status);
    out.push(fx('blocked', `blocked: ${newWall.kind} on ${shortUrl(after.url)}${status >= 400 ? ` (HTTP ${status})` : ''}`, evidence));
  }
  for (const d of ev.dialogs) out.push(fx('dialog', `dialog ${d.type} ${q(d.message)} dismissed`, { type: d.type, message: d.message.slice(0, 500) }));
  for (const f of ev.fileChoosers) {
    out.push(fx('dialog', `dialog file_chooser dismissed (file uploads are not available)`, { type: 'file_chooser', multiple: String(f.multiple) }));
  }
  for (const d of ev.downloads) out.push(fx('download', `download ${q(d.filename)} started (not kept)`, { filename: d.filename, url: d.url }));

  if (before && after && !urlChanged) {
    const bf = before.focus;
    const af = after.focus;
    if (intent.tool === 'write' && intent.expected !== undefined) {
      if (!af) {
        out.push(fx('value_mismatch', `value_mismatch: typed ${q(intent.expected)} but no field has focus`, { expected: intent.expected, actual: '' }));
      } else if (norm(af.value) === norm(intent.expected) || (af.tag === 'select' && af.value !== '')) {
        out.push(fx('value_set', `value_set ${q(af.value)} in ${fieldName(af)}`, { value: af.value, field: af.name, expected: intent.expected }));
      } else {
        out.push(fx('value_mismatch', `value_mismatch: typed ${q(intent.expected)} but ${fieldName(af)} shows ${q(af.value)}`, { expected: intent.expected, actual: af.value, field: af.name }));
      }
    } else if (af && bf && af.token === bf.token && af.value !== bf.value) {
      out.push(fx('value_set', `value_set ${q(af.value)} in ${fieldName(af)}`, { value: af.value, field: af.name, before: bf.value }));
    }
    const { added, removed } = multisetDiff(before.sigs, after.sigs);
    const focusMoved = !!af && af.token !== (bf?.token ?? -1) && intent.tool !== 'write';
    if (added > 0 || removed > 0 || focusMoved) {
      const parts: string[] = [];
      if (added > 0 || removed > 0) parts.push(`${added} added, ${removed} removed interactive elements`);
      if (focusMoved && af) parts.push(`focused ${af.role} ${q(af.name, 40)}${af.value && af.role !== 'textbox' ? ` (${q(af.value, 30)})` : ''}`);
      const ev2: Record<string, string> = { added: String(added), removed: String(removed) };
      if (focusMoved && af) ev2['focused'] = af.name;
      out.push(fx('dom_changed', `dom_changed: ${parts.join('; ')}`, ev2));
    }
    const pageMoved = before.scrollY !== after.scrollY || before.scrollX !== after.scrollX;
    const probeMoved = !!before.probe && !!after.probe && before.probe.token === after.probe.token && (before.probe.top !== after.probe.top || before.probe.left !== after.probe.left);
    if (pageMoved || probeMoved) {
      const dy = pageMoved ? after.scrollY - before.scrollY : (after.probe?.top ?? 0) - (before.probe?.top ?? 0);
      const dx = pageMoved ? after.scrollX - before.scrollX : (after.probe?.left ?? 0) - (before.probe?.left ?? 0);
      const dir = Math.abs(dy) >= Math.abs(dx) ? (dy > 0 ? 'down' : 'up') : dx > 0 ? 'right' : 'left';
      const where = pageMoved ? `page y ${after.scrollY} of ${after.scrollMaxY}` : `inner container y ${after.probe?.top ?? 0} of ${after.probe?.maxTop ?? 0}`;
      out.push(fx('scrolled', `scrolled ${dir} ${Math.abs(dy) || Math.abs(dx)}px (${where})`, { dx: String(dx), dy: String(dy), scroll_y: String(after.scrollY), scroll_max_y: String(after.scrollMaxY), target: pageMoved ? 'page' : 'element' }));
    } else if (intent.tool === 'scroll') {
      const d = intent.direction ?? 'down';
      const edge = { down: 'bottom', up: 'top', left: 'left edge', right: 'right edge' }[d];
      out.push(fx('scroll_blocked', `scroll_blocked: already at the ${edge}`, { direction: d, scroll_y: String(after.scrollY), scroll_max_y: String(after.scrollMaxY) }));
    }
  }
  if (out.length === 0) out.push(fx('no_effect', 'no_effect', {}));
  return out;
}

function norm(s: string): string {
  return s.replace(/\r\n/g, '\n').trim();
}

/** Effect of a call that failed before or while acting. */
export function errorEffect(code: string, message: string, evidence: Record<string, string> = {}): EffectRecord {
  return fx('error', `error: ${code}${message ? ` (${message.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`, { code, ...evidence });
}

export function doneEffect(response: string): EffectRecord {
  return fx('done', `done: ${q(response, 120)}`, { response });
}

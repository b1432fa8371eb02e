// Small helpers that run INSIDE the page (part of the injected script, injected-script.ts) for the
// tools: element-id resolution, focus and <select> handling, the reaction wait and the tab-opening
// watch (installed by the init script before the page's own scripts run).
import { deepActiveElement, type PageRegistry } from './page-shared.js';

export interface ElementTarget {
  found: boolean;
  x: number;
  y: number;
  width: number;
  height: number;
  inViewport: boolean;
  tag: string;
}

/** Box (viewport coordinates, frames included) of an element of the last observation, scrolled into view when asked. */
export function elementTargetInPage(a: { id: number; scroll: boolean }): ElementTarget {
  const w = window as unknown as { __owrl?: PageRegistry };
  const el = w.__owrl?.els[a.id - 1];
  const none: ElementTarget = { found: false, x: 0, y: 0, width: 0, height: 0, inViewport: false, tag: '' };
  if (!el || !el.isConnected) return none;
  const rectOf = (): DOMRect & { ox: number; oy: number } => {
    const r = el.getBoundingClientRect();
    let ox = 0;
    let oy = 0;
    let win: Window | null = el.ownerDocument.defaultView;
    while (win && win !== window && win.frameElement) {
      const fr = win.frameElement.getBoundingClientRect();
      ox += fr.left + win.frameElement.clientLeft;
      oy += fr.top + win.frameElement.clientTop;
      win = win.parent;
    }
    return Object.assign(r, { ox, oy });
  };
  let r = rectOf();
  const vis = (x: number, y: number): boolean => x >= 0 && y >= 0 && x < window.innerWidth && y < window.innerHeight;
  if (a.scroll && !vis(r.left + r.ox + r.width / 2, r.top + r.oy + r.height / 2)) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    r = rectOf();
  }
  const x = r.left + r.ox + r.width / 2;
  const y = r.top + r.oy + r.height / 2;
  return { found: true, x, y, width: r.width, height: r.height, inViewport: vis(x, y), tag: el.tagName.toLowerCase() };
}

/** Focuses an element of the last observation; false when it is gone or not focusable. */
export function focusElementInPage(id: number): boolean {
  const w = window as unknown as { __owrl?: PageRegistry };
  const el = w.__owrl?.els[id - 1] as HTMLElement | undefined;
  if (!el || !el.isConnected || typeof el.focus !== 'function') return false;
  el.focus();
  let a: Element | null = el.ownerDocument.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a === el;
}

/** Chooses the option of the focused <select> whose text or value matches; the chosen text or null. */
export function selectOptionInPage(want: string): string | null {
  const f = deepActiveElement(false);
  if (!f || f.tagName !== 'SELECT') return null;
  const sel = f as HTMLSelectElement;
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const w = norm(want);
  const opts = Array.from(sel.options);
  const o = opts.find((x) => norm(x.text) === w) ?? opts.find((x) => norm(x.value) === w) ?? opts.find((x) => w !== '' && norm(x.text).includes(w));
  if (!o) return null;
  sel.value = o.value;
  sel.dispatchEvent(new Event('input', { bubbles: true }));
  sel.dispatchEvent(new Event('change', { bubbles: true }));
  return o.text.trim();
}

/** What the page attempted since the last look (see popupWatchInPage). */
export interface PageAttempts {
  /** Tab openings (window.open, target=_blank links and forms). */
  popups: number;
  /** Clicks that open a file chooser. */
  choosers: number;
}

/**
 * Resolves after two animation frames (or 100 ms when frames are throttled), with the tab
 * openings and file-chooser clicks the page attempted since the last call, resetting them.
 */
export function nextFramesInPage(): Promise<PageAttempts> {
  return new Promise<PageAttempts>((resolve) => {
    const w = window as unknown as { __owrlPopups?: number; __owrlChoosers?: number };
    const done = (): void => {
      clearTimeout(t);
      const n = { popups: w.__owrlPopups ?? 0, choosers: w.__owrlChoosers ?? 0 };
      w.__owrlPopups = 0;
      w.__owrlChoosers = 0;
      resolve(n);
    };
    const t = setTimeout(done, 100);
    requestAnimationFrame(() => requestAnimationFrame(done));
  });
}

/**
 * Init script of every frame: counts attempts to open a tab (window.open, target=_blank links and
 * forms) and clicks on file inputs (or their labels) on the top window, so the reaction wait knows
 * a new tab or a file chooser is coming and waits for it.
 */
export function popupWatchInPage(): void {
  type Counters = { __owrlPopups?: number; __owrlChoosers?: number };
  const w = window as unknown as Counters & { __owrlWatch?: boolean };
  if (w.__owrlWatch) return;
  w.__owrlWatch = true;
  const top = (): Counters => {
    try {
      const t = window.top as unknown as Counters;
      void t.__owrlPopups;
      return t;
    } catch {
      return w;
    }
  };
  const mark = (): void => {
    const t = top();
    t.__owrlPopups = (t.__owrlPopups ?? 0) + 1;
  };
  const own = (target: string | null | undefined): boolean => !target || ['_self', '_top', '_parent'].includes(target.toLowerCase());
  const open = window.open;
  window.open = function (this: Window, ...args: Parameters<typeof window.open>) {
    mark();
    return open.apply(this, args);
  } as typeof window.open;
  document.addEventListener(
    'click',
    (e) => {
      const el = e.target as Element | null;
      const a = el && typeof el.closest === 'function' ? (el.closest('a[target],area[target]') as HTMLAnchorElement | null) : null;
      if (a && !own(a.target)) setTimeout(() => (e.defaultPrevented ? undefined : mark()), 0);
    },
    true,
  );
  document.addEventListener(
    'click',
    (e) => {
      const el = e.target as Element | null;
      if (!el || typeof el.closest !== 'function') return;
      const label = el.closest('label');
      const input = el.closest('input') ?? (label ? label.control : null);
      if (!input || (input as HTMLInputElement).type !== 'file') return;
      setTimeout(() => {
        if (e.defaultPrevented) return;
        const t = top();
        t.__owrlChoosers = (t.__owrlChoosers ?? 0) + 1;
      }, 0);
    },
    true,
  );
  document.addEventListener(
    'submit',
    (e) => {
      const f = e.target as HTMLFormElement | null;
      if (f && !own(f.target)) setTimeout(() => (e.defaultPrevented ? undefined : mark()), 0);
    },
    true,
  );
}

/** What has keyboard focus (through shadow roots and same-origin iframes): tag and whether typing edits it. */
export function focusedFieldInPage(): { tag: string; editable: boolean; select: boolean } {
  const f = deepActiveElement(false);
  if (!f || f === f.ownerDocument.body || f === f.ownerDocument.documentElement) return { tag: '', editable: false, select: false };
  const el = f as HTMLInputElement;
  const t = el.tagName;
  const nonText = ['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'color', 'range'];
  const editable = ((t === 'INPUT' && !nonText.includes(el.type)) || t === 'TEXTAREA') ? !el.readOnly && !el.disabled : (f as HTMLElement).isContentEditable;
  return { tag: t.toLowerCase(), editable, select: t === 'SELECT' };
}

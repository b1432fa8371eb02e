// The cheap before/after page state used to classify a tool call's effects, computed INSIDE the
// page (serialised by Playwright's page.evaluate): URL, focused field and value, scroll offsets of
// the page and of the container under a probe point, signatures of the visible interactive
// elements (through shadow roots and same-origin iframes), and wall signals.
import type { WallSignals } from './bot-wall.js';

export interface SnapshotArgs {
  sel: string;
  probe: [number, number] | null;
  wallSelectors: readonly string[];
  smallPageElements: number;
}

export interface FocusInfo {
  token: number;
  tag: string;
  role: string;
  name: string;
  value: string;
  editable: boolean;
}

export interface RawSnapshot {
  url: string;
  title: string;
  focus: FocusInfo | null;
  scrollX: number;
  scrollY: number;
  scrollMaxX: number;
  scrollMaxY: number;
  /** Scroll state of the scroll container under the probe point ('page' when it is the page). */
  probe: { token: number; top: number; left: number; maxTop: number; maxLeft: number } | null;
  /** Multiset of signatures (hashes) of the visible interactive elements. */
  sigs: number[];
  wall: WallSignals;
}

/** Cheap before/after state of the page for effect computation. */
export function snapshotInPage(a: SnapshotArgs): RawSnapshot {
  type Reg = { els: Element[]; tokens?: WeakMap<Element, number>; next?: number };
  const w = window as unknown as { __owrl?: Reg };
  const reg: Reg = w.__owrl ?? { els: [] };
  w.__owrl = reg;
  const tokens = (reg.tokens ??= new WeakMap());
  const tokenOf = (el: Element): number => {
    let t = tokens.get(el);
    if (t === undefined) {
      t = reg.next = (reg.next ?? 0) + 1;
      tokens.set(el, t);
    }
    return t;
  };
  const clean = (s: string | null | undefined, n: number): string => {
    const t = (s ?? '').replace(/\s+/g, ' ').trim();
    return t.length > n ? t.slice(0, n - 1) + '…' : t;
  };
  const hash = (s: string): number => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  };
  const visible = (el: Element): boolean => {
    const f = (el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility;
    return f ? f.call(el, { checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true }) : true;
  };
  const sigs: number[] = [];
  const walk = (root: Document | ShadowRoot, depth: number): void => {
    const inter = root.querySelectorAll(a.sel);
    for (let i = 0; i < inter.length; i++) {
      const el = inter[i] as HTMLElement;
      if (visible(el)) sigs.push(hash(el.tagName + '|' + (el.getAttribute('href') ?? '') + '|' + (el.textContent ?? '').slice(0, 60)));
    }
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i] as HTMLElement;
      if (el.shadowRoot && depth < 8) walk(el.shadowRoot, depth + 1);
      if ((el.tagName === 'IFRAME' || el.tagName === 'FRAME') && depth < 8) {
        try {
          const d = (el as HTMLIFrameElement).contentDocument;
          if (d) walk(d, depth + 1);
        } catch {
          /* cross-origin */
        }
      }
    }
  };
  walk(document, 0);
  // Focused element, descending into shadow roots and same-origin iframes.
  let f: Element | null = document.activeElement;
  for (let i = 0; i < 8 && f; i++) {
    if (f.shadowRoot?.activeElement) f = f.shadowRoot.activeElement;
    else if (f.tagName === 'IFRAME') {
      let inner: Element | null = null;
      try {
        inner = (f as HTMLIFrameElement).contentDocument?.activeElement ?? null;
      } catch {
        inner = null;
      }
      if (!inner || inner === (f as HTMLIFrameElement).contentDocument?.body) break;
      f = inner;
    } else break;
  }
  let focus: FocusInfo | null = null;
  if (f && f !== document.body && f !== document.documentElement) {
    const el = f as HTMLElement;
    const t = el.tagName;
    const ty = t === 'INPUT' ? (el as HTMLInputElement).type : '';
    const textual = t === 'TEXTAREA' || (t === 'INPUT' && !['checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'color', 'range'].includes(ty));
    let value = '';
    if (t === 'INPUT' && (ty === 'checkbox' || ty === 'radio')) value = (el as HTMLInputElement).checked ? 'checked' : 'unchecked';
    else if (t === 'INPUT' || t === 'TEXTAREA') value = (el as HTMLInputElement).value;
    else if (t === 'SELECT') value = (el as HTMLSelectElement).selectedOptions[0]?.text.trim() ?? '';
    else if (el.isContentEditable) value = el.innerText;
    let name = el.getAttribute('aria-label') ?? '';
    if (!name.trim()) {
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length) name = Array.from(labels).map((l) => l.innerText).join(' ');
    }
    if (!name.trim() && !textual && t !== 'SELECT') name = el.innerText ?? '';
    if (!name.trim()) name = el.getAttribute('placeholder') ?? el.getAttribute('title') ?? el.getAttribute('name') ?? '';
    const inputRole = (): string => {
      if (ty === 'checkbox' || ty === 'radio') return ty;
      if (['submit', 'button', 'reset', 'image', 'file', 'color'].includes(ty)) return 'button';
      return ({ range: 'slider', search: 'searchbox', number: 'spinbutton' } as Record<string, string>)[ty] ?? 'textbox';
    };
    const role =
      el.getAttribute('role') ??
      (t === 'INPUT' ? inputRole() : t === 'A' ? 'link' : t === 'SELECT' ? 'combobox' : t === 'BUTTON' || t === 'SUMMARY' ? 'button' : textual || el.isContentEditable ? 'textbox' : t.toLowerCase());
    focus = {
      token: tokenOf(el),
      tag: t.toLowerCase(),
      role,
      name: clean(name, 80),
      value: value.length > 2000 ? value.slice(0, 2000) : value,
      editable: (textual && !(el as HTMLInputElement).readOnly && !(el as HTMLInputElement).disabled) || t === 'SELECT' || el.isContentEditable,
    };
  }
  const se = document.scrollingElement ?? document.documentElement;
  let probe: RawSnapshot['probe'] = null;
  if (a.probe) {
    let el: Element | null = document.elementFromPoint(a.probe[0], a.probe[1]);
    while (el && el !== se && el !== document.body) {
      const cs = getComputedStyle(el);
      const sy = el.scrollHeight > el.clientHeight + 1 && /(auto|scroll|overlay)/.test(cs.overflowY);
      const sx = el.scrollWidth > el.clientWidth + 1 && /(auto|scroll|overlay)/.test(cs.overflowX);
      if (sy || sx) break;
      el = el.parentElement;
    }
    if (el && el !== se && el !== document.body) {
      probe = {
        token: tokenOf(el),
        top: Math.round(el.scrollTop),
        left: Math.round(el.scrollLeft),
        maxTop: Math.max(0, el.scrollHeight - el.clientHeight),
        maxLeft: Math.max(0, el.scrollWidth - el.clientWidth),
      };
    }
  }
  let selector = '';
  for (const s of a.wallSelectors) {
    try {
      if (document.querySelector(s)) {
        selector = s;
        break;
      }
    } catch {
      /* bad selector */
    }
  }
  const small = document.getElementsByTagName('*').length < a.smallPageElements;
  return {
    url: location.href,
    title: document.title,
    focus,
    scrollX: Math.round(window.scrollX),
    scrollY: Math.round(window.scrollY),
    scrollMaxX: Math.max(0, Math.round(se.scrollWidth - window.innerWidth)),
    scrollMaxY: Math.max(0, Math.round(se.scrollHeight - window.innerHeight)),
    probe,
    sigs,
    wall: { title: document.title, selector, smallText: small ? clean(document.body?.innerText, 3000) : '' },
  };
}

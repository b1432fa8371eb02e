// The cheap before/after page state used to classify a tool call's effects, computed INSIDE the
// page (part of the injected script, injected-script.ts): URL, focused field and value, scroll offsets of
// the page and of the container under a probe point, signatures of the visible interactive
// elements (through shadow roots and same-origin iframes), and wall signals.
import type { WallSignals } from './bot-wall.js';
import { cleanText, deepActiveElement, isVisible, pageRegistry, wallSignalsInPage, type InjectedConfig } from './page-shared.js';

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
export function snapshotInPage(a: InjectedConfig, probeAt: [number, number] | null): RawSnapshot {
  const reg = pageRegistry();
  const tokens = (reg.tokens ??= new WeakMap());
  const tokenOf = (el: Element): number => {
    let t = tokens.get(el);
    if (t === undefined) {
      t = reg.next = (reg.next ?? 0) + 1;
      tokens.set(el, t);
    }
    return t;
  };
  const hash = (s: string): number => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  };
  const sigs: number[] = [];
  const walk = (root: Document | ShadowRoot, depth: number): void => {
    const inter = root.querySelectorAll(a.sel);
    for (let i = 0; i < inter.length; i++) {
      const el = inter[i] as HTMLElement;
      if (isVisible(el)) sigs.push(hash(el.tagName + '|' + (el.getAttribute('href') ?? '') + '|' + (el.textContent ?? '').slice(0, 60)));
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
  const f = deepActiveElement(true);
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
      name: cleanText(name, 80),
      value: value.length > 2000 ? value.slice(0, 2000) : value,
      editable: (textual && !(el as HTMLInputElement).readOnly && !(el as HTMLInputElement).disabled) || t === 'SELECT' || el.isContentEditable,
    };
  }
  const se = document.scrollingElement ?? document.documentElement;
  let probe: RawSnapshot['probe'] = null;
  if (probeAt) {
    let el: Element | null = document.elementFromPoint(probeAt[0], probeAt[1]);
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
    wall: wallSignalsInPage(a),
  };
}

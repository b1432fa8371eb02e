// The observation walk that runs INSIDE the page (part of the injected script, injected-script.ts):
// visible interactive elements and short texts with ids, names, boxes and contexts, through open
// shadow roots and same-origin iframes; it tags elements with `data-owrl-id` and keeps an id →
// element registry in the page for the tools.
import type { ElementInfo, TextItem } from '@owrl/core';
import type { WallSignals } from './bot-wall.js';
import { cleanText, isVisible, wallSignalsInPage, type InjectedConfig, type PageRegistry } from './page-shared.js';

/** Selector of interactive elements (docs/design.md §5 observation). */
export const INTERACTIVE_SELECTOR = [
  'a',
  'button',
  'input:not([type=hidden])',
  'select',
  'textarea',
  'summary',
  '[role=button]',
  '[role=link]',
  '[role=tab]',
  '[role=menuitem]',
  '[role=checkbox]',
  '[role=radio]',
  '[role=switch]',
  '[role=option]',
  '[role=combobox]',
  '[role=textbox]',
  '[role=searchbox]',
  '[onclick]',
  '[contenteditable=""]',
  '[contenteditable=true]',
].join(',');

export const CONTEXT_SELECTOR = 'li,tr,article,[class*=card],section,form';

export interface RawObservation {
  url: string;
  title: string;
  elements: ElementInfo[];
  texts: TextItem[];
  scrollY: number;
  scrollMaxY: number;
  viewport: { width: number; height: number };
  wall: WallSignals;
}

/** The observation walk: assigns `data-owrl-id` and keeps the id → element registry in the page. */
export function observeInPage(a: InjectedConfig): RawObservation {
  const w = window as unknown as { __owrl?: PageRegistry };
  for (const el of w.__owrl?.els ?? []) {
    try {
      el.removeAttribute('data-owrl-id');
    } catch {
      /* detached */
    }
  }
  const reg: Element[] = [];
  w.__owrl = { ...(w.__owrl ?? {}), els: reg };
  const vw = window.innerWidth;
  const vh = window.innerHeight;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BR', 'HR']);
  type Cand = { el: HTMLElement; x: number; y: number; w: number; h: number; frame: string; root: Document | ShadowRoot; order: number };
  const inter: Cand[] = [];
  const texts: Cand[] = [];
  let order = 0;
  const ownText = (el: Element): boolean => {
    for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && (n.nodeValue ?? '').trim() !== '') return true;
    return false;
  };
  const walk = (root: Document | ShadowRoot, ox: number, oy: number, frame: string, depth: number): void => {
    const all = root.querySelectorAll('*');
    for (let i = 0; i < all.length; i++) {
      const el = all[i] as HTMLElement;
      if (SKIP.has(el.tagName)) continue;
      const isInter = el.matches(a.sel) || (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable));
      const isText = !isInter && ownText(el) && (el.textContent ?? '').length <= 400 && !el.closest(a.sel);
      if (isInter || isText) {
        const r = el.getBoundingClientRect();
        if (r.width > 0 && r.height > 0 && isVisible(el)) {
          const c: Cand = { el, x: r.left + ox, y: r.top + oy, w: r.width, h: r.height, frame, root, order: order++ };
          (isInter ? inter : texts).push(c);
        }
      }
      if (el.shadowRoot && depth < 8) walk(el.shadowRoot, ox, oy, frame ? frame + '/shadow' : 'shadow', depth + 1);
      if ((el.tagName === 'IFRAME' || el.tagName === 'FRAME') && depth < 8) {
        let doc: Document | null = null;
        try {
          doc = (el as HTMLIFrameElement).contentDocument;
        } catch {
          doc = null;
        }
        if (doc && doc.documentElement) {
          const r = el.getBoundingClientRect();
          const idx = Array.prototype.indexOf.call(root.querySelectorAll('iframe,frame'), el) as number;
          walk(doc, ox + r.left + el.clientLeft, oy + r.top + el.clientTop, (frame ? frame + '/' : '') + `iframe[${idx}]`, depth + 1);
        }
      }
    }
  };
  walk(document, 0, 0, '', 0);
  const inView = (c: Cand): boolean => c.x < vw && c.y < vh && c.x + c.w > 0 && c.y + c.h > 0;
  const pick = (cs: Cand[], max: number): Cand[] => {
    if (cs.length <= max) return cs;
    const v = cs.filter(inView);
    const out = v.slice(0, max);
    for (const c of cs) {
      if (out.length >= max) break;
      if (!inView(c)) out.push(c);
    }
    return out.sort((p, q) => p.order - q.order);
  };
  const ctxCache = new Map<Element, string>();
  const contextOf = (el: Element): string => {
    const parent = el.parentElement ?? ((el.getRootNode() as ShadowRoot).host as Element | undefined) ?? null;
    if (!parent) return '';
    let c: Element | null = parent.closest(a.ctxSel);
    if (!c) c = parent;
    if (c === c.ownerDocument.body || c === c.ownerDocument.documentElement) return '';
    let t = ctxCache.get(c);
    if (t === undefined) {
      t = cleanText((c as HTMLElement).innerText ?? c.textContent, 200);
      ctxCache.set(c, t);
    }
    return t;
  };
  const roleOf = (el: HTMLElement): string => {
    const r = el.getAttribute('role');
    if (r && r.trim()) return r.trim().split(/\s+/)[0] ?? r;
    const t = el.tagName;
    if (t === 'A') return 'link';
    if (t === 'BUTTON' || t === 'SUMMARY') return 'button';
    if (t === 'SELECT') return (el as HTMLSelectElement).multiple ? 'listbox' : 'combobox';
    if (t === 'TEXTAREA') return 'textbox';
    if (t === 'INPUT') {
      const ty = (el as HTMLInputElement).type;
      if (ty === 'checkbox' || ty === 'radio') return ty;
      if (['submit', 'button', 'reset', 'image', 'file', 'color'].includes(ty)) return 'button';
      if (ty === 'range') return 'slider';
      if (ty === 'search') return 'searchbox';
      if (ty === 'number') return 'spinbutton';
      return 'textbox';
    }
    if (el.isContentEditable) return 'textbox';
    return 'button';
  };
  const nameOf = (el: HTMLElement, root: Document | ShadowRoot): string => {
    let n = el.getAttribute('aria-label');
    if (n && n.trim()) return cleanText(n, 120);
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      n = lb
        .split(/\s+/)
        .map((id) => (root.getElementById(id) as HTMLElement | null)?.innerText ?? '')
        .join(' ');
      if (n.trim()) return cleanText(n, 120);
    }
    const labels = (el as HTMLInputElement).labels;
    if (labels && labels.length) {
      n = Array.from(labels)
        .map((l) => l.innerText)
        .join(' ');
      if (n.trim()) return cleanText(n, 120);
    }
    const t = el.tagName;
    if (t === 'INPUT') {
      const ty = (el as HTMLInputElement).type;
      if (['submit', 'button', 'reset'].includes(ty) && (el as HTMLInputElement).value) return cleanText((el as HTMLInputElement).value, 120);
      if (ty === 'image' && (el as HTMLInputElement).alt) return cleanText((el as HTMLInputElement).alt, 120);
    } else if (t !== 'TEXTAREA' && t !== 'SELECT') {
      n = el.innerText;
      if (n && n.trim()) return cleanText(n, 120);
      const img = el.querySelector('img[alt]') as HTMLImageElement | null;
      if (img && img.alt.trim()) return cleanText(img.alt, 120);
      const st = el.querySelector('svg title');
      if (st && (st.textContent ?? '').trim()) return cleanText(st.textContent, 120);
    }
    for (const at of ['placeholder', 'title', 'alt', 'name']) {
      n = el.getAttribute(at);
      if (n && n.trim()) return cleanText(n, 120);
    }
    return '';
  };
  const valueOf = (el: HTMLElement): string => {
    const t = el.tagName;
    if (t === 'INPUT') {
      const i = el as HTMLInputElement;
      if (i.type === 'checkbox' || i.type === 'radio') return i.checked ? 'checked' : 'unchecked';
      if (i.type === 'password') return '•'.repeat(Math.min(i.value.length, 12));
      if (['submit', 'button', 'reset', 'image'].includes(i.type)) return '';
      return cleanText(i.value, 200);
    }
    if (t === 'TEXTAREA') return cleanText((el as HTMLTextAreaElement).value, 200);
    if (t === 'SELECT') return cleanText((el as HTMLSelectElement).selectedOptions[0]?.text ?? '', 200);
    if (el.isContentEditable) return cleanText(el.innerText, 200);
    const ac = el.getAttribute('aria-checked');
    if (ac) return ac === 'true' ? 'checked' : 'unchecked';
    return '';
  };
  const box = (c: Cand) => ({ x: Math.round(c.x), y: Math.round(c.y), width: Math.round(c.w), height: Math.round(c.h) });
  const elements: ElementInfo[] = [];
  for (const c of pick(inter, a.maxElements)) {
    const id = reg.length + 1;
    reg.push(c.el);
    c.el.setAttribute('data-owrl-id', String(id));
    const t = c.el.tagName;
    elements.push({
      id,
      role: roleOf(c.el),
      tag: t.toLowerCase(),
      name: nameOf(c.el, c.root),
      value: valueOf(c.el),
      type: t === 'INPUT' ? (c.el as HTMLInputElement).type : '',
      href: t === 'A' ? ((c.el as HTMLAnchorElement).href ?? '') : '',
      box: box(c),
      inViewport: inView(c),
      context: contextOf(c.el),
      frame: c.frame,
    });
  }
  const textItems: TextItem[] = [];
  for (const c of pick(texts, a.maxTexts * 2)) {
    if (textItems.length >= a.maxTexts) break;
    const text = cleanText(c.el.innerText || c.el.textContent, 400);
    if (!text || text.length > 80) continue;
    const id = reg.length + 1;
    reg.push(c.el);
    c.el.setAttribute('data-owrl-id', String(id));
    textItems.push({ id, text, tag: c.el.tagName.toLowerCase(), context: contextOf(c.el), box: box(c), inViewport: inView(c) });
  }
  const se = document.scrollingElement ?? document.documentElement;
  return {
    url: location.href,
    title: document.title,
    elements,
    texts: textItems,
    scrollY: Math.round(window.scrollY),
    scrollMaxY: Math.max(0, Math.round(se.scrollHeight - window.innerHeight)),
    viewport: { width: vw, height: vh },
    wall: wallSignalsInPage(a),
  };
}

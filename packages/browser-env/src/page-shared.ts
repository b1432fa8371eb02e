// Helpers that run INSIDE the page, shared by the in-page functions (page-observe, page-snapshot,
// page-helpers). They are not evaluated one by one: injected-script.ts puts them with the functions
// that call them into the one injected script bundle, where those call them by name.
import type { WallSignals } from './bot-wall.js';

/** Fixed inputs of the in-page code, put into the bundle once (see injected-script.ts). */
export interface InjectedConfig {
  /** Selector of interactive elements. */
  sel: string;
  /** Selector of the containers whose text is an element's context. */
  ctxSel: string;
  maxElements: number;
  maxTexts: number;
  /** Challenge selectors, checked in this order (bot-wall.ts). */
  wallSelectors: readonly string[];
  /** Pages with fewer elements than this get their text checked for wall phrases. */
  smallPageElements: number;
}

/** The id → element registry of the last observation, and stable tokens of elements (for effects). */
export interface PageRegistry {
  els: Element[];
  tokens?: WeakMap<Element, number>;
  next?: number;
}

/** The page's registry, created empty when there is none yet. */
export function pageRegistry(): PageRegistry {
  const w = window as unknown as { __owrl?: PageRegistry };
  const reg: PageRegistry = w.__owrl ?? { els: [] };
  w.__owrl = reg;
  return reg;
}

/** Whitespace collapsed and cut to `n` characters (an ellipsis marks the cut). */
export function cleanText(s: string | null | undefined, n: number): string {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

/** Whether CSS shows the element (display, visibility, opacity); true where the browser cannot tell. */
export function isVisible(el: Element): boolean {
  const f = (el as Element & { checkVisibility?: (o: object) => boolean }).checkVisibility;
  return f ? f.call(el, { checkOpacity: true, checkVisibilityCSS: true, opacityProperty: true, visibilityProperty: true }) : true;
}

/**
 * The element with keyboard focus, descending through open shadow roots and same-origin iframes
 * (8 levels at most). With `stopAtFrameBody` an iframe whose focus is its body is the answer itself.
 */
export function deepActiveElement(stopAtFrameBody: boolean): Element | null {
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
      if (!inner || (stopAtFrameBody && inner === (f as HTMLIFrameElement).contentDocument?.body)) break;
      f = inner;
    } else break;
  }
  return f;
}

/** The wall signals of the document (bot-wall.ts): title, first matching challenge selector, text of a small page. */
export function wallSignalsInPage(c: Pick<InjectedConfig, 'wallSelectors' | 'smallPageElements'>): WallSignals {
  let selector = '';
  for (const s of c.wallSelectors) {
    try {
      if (document.querySelector(s)) {
        selector = s;
        break;
      }
    } catch {
      /* bad selector */
    }
  }
  const small = document.getElementsByTagName('*').length < c.smallPageElements;
  return { title: document.title, selector, smallText: small ? cleanText(document.body?.innerText, 3000) : '' };
}

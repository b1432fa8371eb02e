// The in-page half of browser-env as ONE injected script, the way Playwright injects its own: the
// in-page functions (page-shared, page-observe, page-snapshot, page-helpers) are put together into
// one source that is evaluated once per document and exposes them by name. The episode's context
// installs it as an init script (so it, and the tab-opening watch, are there before the page's own
// scripts run); a document that predates it (the first about:blank) gets it on the first call.
// Node code calls the functions through callInjected(page, name, ...args).
import type { BrowserContext, Page } from 'playwright-core';
import { WALL_SELECTORS } from './bot-wall.js';
import { elementTargetInPage, focusedFieldInPage, focusElementInPage, nextFramesInPage, popupWatchInPage, selectOptionInPage } from './page-helpers.js';
import { CONTEXT_SELECTOR, INTERACTIVE_SELECTOR, observeInPage } from './page-observe.js';
import { cleanText, deepActiveElement, isVisible, pageRegistry, wallSignalsInPage, type InjectedConfig } from './page-shared.js';
import { snapshotInPage } from './page-snapshot.js';

export const INJECTED_CONFIG: InjectedConfig = {
  sel: INTERACTIVE_SELECTOR,
  ctxSel: CONTEXT_SELECTOR,
  maxElements: 400,
  maxTexts: 150,
  wallSelectors: WALL_SELECTORS,
  smallPageElements: 400,
};

/** The named functions the bundle exposes (runs in the page, with the config baked in). */
export function createInjectedApi(config: InjectedConfig) {
  return {
    /** The observation walk (page-observe.ts). */
    observe: () => observeInPage(config),
    /** The before/after state of a tool call (page-snapshot.ts). */
    snapshot: (probe: [number, number] | null) => snapshotInPage(config, probe),
    /** Wall signals alone (the init check). */
    wallSignals: () => wallSignalsInPage(config),
    elementTarget: elementTargetInPage,
    focusElement: focusElementInPage,
    focusedField: focusedFieldInPage,
    selectOption: selectOptionInPage,
    nextFrames: nextFramesInPage,
    watchPopups: popupWatchInPage,
  };
}

export type InjectedApi = ReturnType<typeof createInjectedApi>;

/**
 * Every function the bundle holds. They call each other by name (tsc keeps ES module names), so a
 * function an in-page function calls must be listed here.
 */
const IN_PAGE_FUNCTIONS: ReadonlyArray<(...a: never[]) => unknown> = [
  cleanText,
  isVisible,
  deepActiveElement,
  pageRegistry,
  wallSignalsInPage,
  observeInPage,
  snapshotInPage,
  elementTargetInPage,
  focusElementInPage,
  focusedFieldInPage,
  selectOptionInPage,
  nextFramesInPage,
  popupWatchInPage,
  createInjectedApi,
];

/** Where the bundle keeps its API (a registered symbol: an element id cannot shadow it). */
const API_KEY = 'owrl.injected';

/** Source of the bundle: an expression that installs the API once per document and yields it. */
export const INJECTED_SOURCE = `(() => {
const key = Symbol.for(${JSON.stringify(API_KEY)});
if (window[key]) return window[key];
${IN_PAGE_FUNCTIONS.map((f) => f.toString()).join('\n')}
const api = createInjectedApi(${JSON.stringify(INJECTED_CONFIG)});
const stringify = JSON.stringify;
Object.defineProperty(api, 'json', { value: async (name, args) => stringify({ value: await api[name](...args) }) });
Object.defineProperty(window, key, { value: api });
return api;
})()`;

/** Installs the bundle in every document of the context, and the tab-opening watch with it. */
export async function installInjectedScript(context: BrowserContext): Promise<void> {
  await context.addInitScript(`${INJECTED_SOURCE}.watchPopups();`);
}

type Call = { name: string; args: unknown[]; key: string };

/**
 * Calls a function of the bundle in the page's main frame and returns its (awaited) result,
 * installing the bundle first in a document that has none. Rejects as page.evaluate does
 * (document replaced mid-call, page closed).
 */
export async function callInjected<K extends keyof InjectedApi>(page: Page, name: K, ...args: Parameters<InjectedApi[K]>): Promise<Awaited<ReturnType<InjectedApi[K]>>> {
  // The result crosses as one JSON string: Playwright's own value serialisation, walked node by
  // node on both sides, costs more CPU than the in-page work of an observation (a 40 KB
  // observation: ~10 ms in the actor and as much in the renderer, against ~1 ms as JSON). The
  // results are plain JSON data (strings, finite numbers, booleans, arrays, objects).
  const call = async (c: Call): Promise<string | null> => {
    const api = (window as unknown as Record<symbol, { json(name: string, args: unknown[]): Promise<string> } | undefined>)[Symbol.for(c.key)];
    return api ? await api.json(c.name, c.args) : null;
  };
  const c: Call = { name, args, key: API_KEY };
  let r = await page.evaluate(call, c);
  if (r === null) {
    await page.evaluate(`${INJECTED_SOURCE}, true`);
    r = await page.evaluate(call, c);
  }
  if (r === null) throw new Error(`the injected script is missing from ${page.url()}`);
  return (JSON.parse(r) as { value?: unknown }).value as Awaited<ReturnType<InjectedApi[K]>>;
}

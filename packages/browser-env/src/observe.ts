// The observation of a step (docs/design.md §5 Observation): one in-page walk of the active tab
// (elements, texts, scroll, wall signals), the tab list, and a JPEG screenshot when the policy
// reads screenshots or the episode keeps one per step for inspection. Bounded by a deadline: an unresponsive page raises EpisodeEnd.
import type { Observation, TabInfo } from '@owrl/core';
import { bounded, settleWithin } from './async-util.js';
import { detectWall, type WallVerdict } from './bot-wall.js';
import { EpisodeEnd } from './errors.js';
import type { EpisodeSession } from './episode-session.js';
import { callInjected } from './injected-script.js';

export interface ObserveRequest {
  lastEffects: string[];
  /** Screenshots kept from earlier steps (newest last); the new one is appended and the list trimmed to `keep`. */
  shots: Uint8Array[];
  takeScreenshot: boolean;
  /** Take a screenshot for inspection (the trajectory viewer) even when the policy reads none. */
  inspect?: boolean;
  keep: number;
  /** performance.now() deadline. */
  deadline: number;
}

export interface ObserveResult {
  observation: Observation;
  wall: WallVerdict | null;
  /** The JPEG of this observation, when one was taken (for the policy or for inspection). */
  shot?: Uint8Array;
}

const SCREENSHOT_QUALITY = 75;
/** Screenshots taken only for the trajectory viewer are smaller. */
const INSPECT_QUALITY = 50;

async function tabList(session: EpisodeSession, activeTitle: string): Promise<TabInfo[]> {
  const pages = session.pages();
  return Promise.all(
    pages.map(async (p, index) => {
      const active = p === session.active;
      const title = active ? activeTitle : p.isClosed() ? '' : await settleWithin(p.title(), 300, '');
      return { index, url: p.url(), title, active };
    }),
  );
}

/** @throws EpisodeEnd(ENV_ERROR page_unresponsive) when the page does not answer before the deadline. */
export async function observe(session: EpisodeSession, req: ObserveRequest): Promise<ObserveResult> {
  const page = session.active;
  const left = (): number => Math.max(1, req.deadline - performance.now());
  const unresponsive = (): EpisodeEnd => new EpisodeEnd('ENV_ERROR', 'page_unresponsive', `observation of ${page.url()} did not finish in time`);
  let raw;
  try {
    raw = await bounded(callInjected(page, 'observe'), left(), unresponsive);
  } catch (e) {
    if (e instanceof EpisodeEnd) throw e;
    // a navigation replaced the document mid-walk: wait for the new one and walk again once
    await settleWithin(page.waitForLoadState('domcontentloaded', { timeout: left() }), left(), undefined);
    raw = await bounded(callInjected(page, 'observe'), left(), unresponsive);
  }
  let shot: Uint8Array | undefined;
  if ((req.takeScreenshot && req.keep > 0) || req.inspect === true) {
    const forPolicy = req.takeScreenshot && req.keep > 0;
    const b = await bounded(
      page.screenshot({ type: 'jpeg', quality: forPolicy ? SCREENSHOT_QUALITY : INSPECT_QUALITY, timeout: left(), caret: 'initial' }),
      left(),
      unresponsive,
    );
    shot = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    if (forPolicy) {
      req.shots.push(shot);
      while (req.shots.length > req.keep) req.shots.shift();
    }
  }
  const tabs = await tabList(session, raw.title);
  const observation: Observation = {
    url: raw.url,
    title: raw.title,
    tabs,
    elements: raw.elements,
    texts: raw.texts,
    scrollY: raw.scrollY,
    scrollMaxY: raw.scrollMaxY,
    viewport: raw.viewport,
    lastEffects: [...req.lastEffects],
    screenshots: req.takeScreenshot ? [...req.shots] : [],
  };
  return { observation, wall: detectWall(raw.wall), ...(shot ? { shot } : {}) };
}

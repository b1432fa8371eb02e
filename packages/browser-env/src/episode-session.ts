// The live state of one episode's browser context: which tab is active, what each tab's network
// is doing (in-flight requests, main-frame navigations and their statuses), and the events of the
// current tool call (dialogs, file choosers, downloads, connections the fence refused, new tabs).
// Provides the two waits of a step: the short reaction wait after each call and the settle wait
// after the call chain.
import type { BrowserContext, Dialog, Download, FileChooser, Page, Request, Response } from 'playwright-core';
import { settleWithin } from './async-util.js';
import { emptyEvents, type CallEvents } from './effects.js';
import type { FenceEvent } from './egress-proxy.js';
import { fenceFailure, fenceKey, isFenceShaped, RecentFenceEvents, type FencedFailure } from './fence-report.js';
import type { Logger } from '@owrl/core';
import { classifyNetError, type NetFailure } from './net-errors.js';
import { callInjected } from './injected-script.js';
import type { PageAttempts } from './page-helpers.js';

interface PageState {
  inflight: Map<Request, number>;
  navStarts: number;
  navCommits: number;
  navFails: number;
  /** Status of the latest main-frame document response (0 before any). */
  docStatus: number;
}

interface CallBuffer {
  dialogs: CallEvents['dialogs'];
  downloads: CallEvents['downloads'];
  blocked: CallEvents['blocked'];
  blockedRequests: CallEvents['blockedRequests'];
  fileChoosers: CallEvents['fileChoosers'];
  status: Map<Page, number>;
  /** A failed main-frame navigation of each tab: its URL, when it failed (performance.now()), and why. */
  navError: Map<Page, { url: string; at: number } & (NetFailure | FencedFailure)>;
  newTabs: string[];
  activeChanged: boolean;
  tabsBefore: number;
}

export interface CallMark {
  page: Page;
  /** performance.now() when the call began. */
  t0: number;
  navStarts: number;
  navCommits: number;
  navFails: number;
  pages: number;
}

/** Requests older than this do not hold up settling (long polls, streaming, analytics beacons). */
const SETTLE_IGNORE_OLDER_MS = 1500;
/** How long a tab opening the page attempted is waited for (a named target may reuse a tab). */
const POPUP_WAIT_MS = 1500;
/** How long a file chooser the page attempted to open is waited for. */
const CHOOSER_WAIT_MS = 1500;
/** Nothing attempted (a page that did not answer the frame wait). */
const NO_ATTEMPTS: PageAttempts = { popups: 0, choosers: 0 };
/** How long fetches started by an action are waited for before its effects are measured. */
const FETCH_WAIT_MS = 1000;
/** How long a failed navigation's own failure event is waited for after Playwright's error, ms. */
const NAV_EVENT_WAIT_MS = 500;

export class EpisodeSession {
  readonly context: BrowserContext;
  private activePage: Page;
  private readonly states = new WeakMap<Page, PageState>();
  private buf: CallBuffer;
  private readonly waiters = new Set<() => void>();
  crashedPage: Page | null = null;
  contextClosed = false;
  /** Status of the latest main-frame document response of any tab. */
  lastDocStatus = 0;
  /** Tab and its navigation count at the end of the last settle(). */
  private settled: { page: Page; navStarts: number } | null = null;
  private readonly log: Logger;
  /** What the fence told of this context's connections, to explain the failures Chromium reports. */
  private readonly fence = new RecentFenceEvents();
  /** A tool call is under way (between beginCall and endCall). */
  private inCall = false;
  /** Refusals told while no call was under way: they show in the next call's effects. */
  private pendingRefusals: CallEvents['blockedRequests'] = [];

  private constructor(context: BrowserContext, page: Page, log: Logger) {
    this.context = context;
    this.activePage = page;
    this.log = log;
    this.buf = this.freshBuffer();
    context.on('page', (p) => {
      this.track(p);
      this.notify();
    });
    context.on('dialog', (d) => this.onDialog(d));
    context.on('close', () => {
      this.contextClosed = true;
      this.notify();
    });
    for (const p of context.pages()) this.track(p);
  }

  static async open(context: BrowserContext, log: Logger): Promise<EpisodeSession> {
    const page = await context.newPage();
    const s = new EpisodeSession(context, page, log);
    s.track(page);
    return s;
  }

  get active(): Page {
    return this.activePage;
  }

  setActive(p: Page): void {
    if (p !== this.activePage) {
      this.activePage = p;
      this.buf.activeChanged = true;
    }
  }

  pages(): Page[] {
    return this.context.pages();
  }

  /**
   * Told by the context's fence listener for every connection it refused or could not make. A
   * refusal is one of the call's refused requests (the next call's when none is under way) until a
   * main-frame navigation's failure shows it was that navigation.
   */
  onFenceEvent(e: FenceEvent): void {
    this.fence.add(e);
    if (e.outcome !== 'refused') return;
    const entry = { url: e.url, reason: e.reason, range: e.range };
    if (this.inCall) this.buf.blockedRequests.push(entry);
    else this.pendingRefusals.push(entry);
  }

  /**
   * Why a navigation of `page` started at `since` (performance.now()) failed with Playwright's
   * error `message`: what the fence told of the request it stopped (the last hop of a redirect
   * chain included; `detail` says it), else Chromium's reason.
   */
  async navFailure(page: Page, message: string, isTimeout: boolean, since: number): Promise<NetFailure | FencedFailure> {
    const own = classifyNetError(message, isTimeout);
    if (isTimeout || !isFenceShaped(message)) return own;
    // the failed request's own event names the hop; it may arrive just after the error
    const fresh = (): boolean => (this.buf.navError.get(page)?.at ?? -Infinity) >= since;
    await this.waitFor(fresh, performance.now() + NAV_EVENT_WAIT_MS);
    const ne = this.buf.navError.get(page);
    if (!ne || !fresh()) return own;
    return 'detail' in ne ? { code: ne.code, transient: ne.transient, detail: ne.detail } : { code: ne.code, transient: ne.transient };
  }

  /** A refused request turned out to be a main-frame navigation: it is the call's refused navigation. */
  private noteRefusedNavigation(url: string, e: FenceEvent): void {
    const key = fenceKey(url);
    for (const list of [this.buf.blockedRequests, this.pendingRefusals]) {
      const i = list.findIndex((b) => b.url === e.url || fenceKey(b.url) === key);
      if (i >= 0) list.splice(i, 1);
    }
    this.buf.blocked.push({ url, reason: e.reason, range: e.range });
  }

  /** A refused tunnel (host:port only) gets the URL of the request Chromium says it failed. */
  private nameRefusedTunnel(url: string, e: FenceEvent): void {
    for (const list of [this.buf.blockedRequests, this.pendingRefusals]) {
      const b = list.find((x) => x.url === e.url);
      if (b) {
        b.url = url;
        return;
      }
    }
  }

  private freshBuffer(): CallBuffer {
    const tabs = this.context.pages().length;
    return { dialogs: [], downloads: [], blocked: [], blockedRequests: [], fileChoosers: [], status: new Map(), navError: new Map(), newTabs: [], activeChanged: false, tabsBefore: tabs };
  }

  private state(p: Page): PageState {
    let s = this.states.get(p);
    if (!s) {
      s = { inflight: new Map(), navStarts: 0, navCommits: 0, navFails: 0, docStatus: 0 };
      this.states.set(p, s);
    }
    return s;
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private track(p: Page): void {
    if (this.states.has(p)) return;
    const st = this.state(p);
    const isMainNav = (r: Request): boolean => {
      try {
        return r.isNavigationRequest() && r.frame() === p.mainFrame();
      } catch {
        return false;
      }
    };
    p.on('request', (r: Request) => {
      st.inflight.set(r, performance.now());
      if (isMainNav(r)) st.navStarts++;
      this.notify();
    });
    const finished = (r: Request, failed: boolean): void => {
      st.inflight.delete(r);
      const text = failed ? (r.failure()?.errorText ?? '') : '';
      const fenced = failed ? this.fence.explain(r.url(), text) : undefined;
      if (failed && isMainNav(r)) {
        st.navFails++;
        if (fenced?.outcome === 'refused') this.noteRefusedNavigation(r.url(), fenced);
        this.buf.navError.set(p, { url: r.url(), at: performance.now(), ...(fenced ? fenceFailure(fenced) : classifyNetError(text)) });
      } else if (fenced?.outcome === 'refused' && fenced.via === 'connect') {
        this.nameRefusedTunnel(r.url(), fenced);
      }
      this.notify();
    };
    p.on('requestfinished', (r: Request) => finished(r, false));
    p.on('requestfailed', (r: Request) => finished(r, true));
    p.on('response', (resp: Response) => {
      const r = resp.request();
      if (!isMainNav(r)) return;
      const status = resp.status();
      if (status >= 300 && status < 400) return;
      st.docStatus = status;
      this.lastDocStatus = status;
      this.buf.status.set(p, status);
    });
    p.on('framenavigated', (f) => {
      if (f === p.mainFrame()) {
        st.navCommits++;
        this.notify();
      }
    });
    p.on('download', (d: Download) => {
      this.buf.downloads.push({ filename: d.suggestedFilename(), url: d.url() });
      void d.cancel().catch(() => {});
    });
    // Listening intercepts the native chooser: it never opens, so it cannot hang the page, and
    // leaving it unanswered is a cancel (no file is chosen).
    p.on('filechooser', (fc: FileChooser) => {
      this.buf.fileChoosers.push({ multiple: fc.isMultiple() });
      this.notify();
    });
    p.on('crash', () => {
      this.crashedPage = p;
      this.log.warn({ url: p.url() }, 'page crashed');
      this.notify();
    });
    p.on('close', () => this.notify());
  }

  private onDialog(d: Dialog): void {
    this.buf.dialogs.push({ type: d.type(), message: d.message() });
    // beforeunload is accepted so navigations proceed; everything else is dismissed at once
    void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => {});
  }

  /** Starts the event buffer of a call and marks the counters the reaction wait compares with. */
  beginCall(): CallMark {
    this.buf = this.freshBuffer();
    this.buf.blockedRequests = this.pendingRefusals;
    this.pendingRefusals = [];
    this.inCall = true;
    const st = this.state(this.activePage);
    return { page: this.activePage, t0: performance.now(), navStarts: st.navStarts, navCommits: st.navCommits, navFails: st.navFails, pages: this.buf.tabsBefore };
  }

  /** Events of the call since beginCall(), resolved against the tab active now. */
  endCall(): CallEvents {
    this.inCall = false;
    const b = this.buf;
    const ev = emptyEvents(b.tabsBefore);
    ev.tabsAfter = this.context.pages().length;
    ev.newTabs = [...b.newTabs];
    ev.dialogs = [...b.dialogs];
    ev.downloads = [...b.downloads];
    ev.blocked = [...b.blocked];
    ev.blockedRequests = [...b.blockedRequests];
    ev.fileChoosers = [...b.fileChoosers];
    ev.navStatus = b.status.get(this.activePage) ?? 0;
    const ne = b.navError.get(this.activePage);
    if (ne) {
      ev.navError = ne.code;
      ev.navErrorUrl = ne.url;
    }
    ev.activeChanged = b.activeChanged;
    return ev;
  }

  /** Whether the current call already saw a navigation outcome (failure, refusal or download). */
  callHasNavOutcome(): boolean {
    return this.buf.navError.size > 0 || this.buf.blocked.length > 0 || this.buf.downloads.length > 0;
  }

  /** Waits until `pred()` holds or `deadline` (performance.now() ms) passes; true when it held. */
  async waitFor(pred: () => boolean, deadline: number): Promise<boolean> {
    while (!pred()) {
      const left = deadline - performance.now();
      if (left <= 0 || this.contextClosed) return pred();
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, Math.min(left, 250));
        const self = this.waiters;
        function done(): void {
          clearTimeout(t);
          self.delete(done);
          resolve();
        }
        self.add(done);
      });
    }
    return true;
  }

  /**
   * After an action: lets the page run its handlers, waits for a navigation it started to commit
   * (or fail) and for its DOM, and follows a tab it opened. Bounded by `deadline`.
   */
  async awaitReaction(mark: CallMark, deadline: number): Promise<void> {
    const page = mark.page;
    const left = (): number => Math.max(1, deadline - performance.now());
    let tried = NO_ATTEMPTS;
    if (!page.isClosed() && this.crashedPage !== page) tried = await settleWithin(callInjected(page, 'nextFrames'), Math.min(300, left()), NO_ATTEMPTS);
    if (tried.choosers > 0 && this.buf.fileChoosers.length === 0) {
      await this.waitFor(() => this.buf.fileChoosers.length > 0, Math.min(deadline, performance.now() + CHOOSER_WAIT_MS));
    }
    if (tried.popups > 0 && this.context.pages().length <= mark.pages) {
      await this.waitFor(() => this.context.pages().length > mark.pages, Math.min(deadline, performance.now() + POPUP_WAIT_MS));
    }
    const st = this.state(page);
    if (st.navStarts === mark.navStarts && !page.isClosed()) {
      // fetches the action started (search suggestions, add to cart): let them land in the DOM
      const fetching = (): boolean => [...st.inflight.values()].some((t) => t >= mark.t0);
      if (fetching()) {
        await this.waitFor(() => !fetching() || st.navStarts > mark.navStarts, Math.min(deadline, performance.now() + FETCH_WAIT_MS));
        if (!page.isClosed()) await settleWithin(callInjected(page, 'nextFrames'), Math.min(300, left()), NO_ATTEMPTS);
      }
    }
    if (st.navStarts > mark.navStarts && !page.isClosed()) {
      await this.waitFor(() => st.navCommits > mark.navCommits || st.navFails > mark.navFails || page.isClosed() || this.crashedPage === page, deadline);
      if (st.navCommits > mark.navCommits) await settleWithin(page.waitForLoadState('domcontentloaded', { timeout: left() }), left(), undefined);
    }
    const pages = this.context.pages();
    if (pages.length > mark.pages) {
      const np = pages[pages.length - 1];
      if (np && np !== this.activePage) {
        await settleWithin(np.waitForLoadState('domcontentloaded', { timeout: Math.min(left(), 5000) }), Math.min(left(), 5000), undefined);
        this.buf.newTabs.push(np.url());
        this.setActive(np);
      }
    }
    if (this.activePage.isClosed()) {
      const rest = this.context.pages();
      const last = rest[rest.length - 1];
      if (last) this.setActive(last);
    }
  }

  /**
   * Waits for load and a quiet network on the active tab, at most until `deadline`, then for the
   * page's next frames — unless nothing happened since the last call's reaction wait already let
   * the page render (no navigation since the last settle, no recent request): then that is enough.
   */
  async settle(deadline: number): Promise<void> {
    const page = this.activePage;
    if (page.isClosed() || this.crashedPage === page) return;
    const left = (): number => Math.max(1, deadline - performance.now());
    const st = this.state(page);
    const busy = (): boolean => {
      const now = performance.now();
      for (const t of st.inflight.values()) if (now - t < SETTLE_IGNORE_OLDER_MS) return true;
      return false;
    };
    const moved = this.settled?.page !== page || this.settled.navStarts !== st.navStarts || busy();
    await settleWithin(page.waitForLoadState('load', { timeout: left() }), left(), undefined);
    await this.waitFor(() => !busy(), deadline);
    if (moved && !page.isClosed()) await settleWithin(callInjected(page, 'nextFrames'), Math.min(200, left()), NO_ATTEMPTS);
    this.settled = { page, navStarts: st.navStarts };
  }

  /** Status of the latest main-frame document response of a tab (0 before any). */
  docStatusOf(p: Page): number {
    return this.state(p).docStatus;
  }
}

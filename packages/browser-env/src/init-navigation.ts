// The init phase of an episode (docs/design.md §5): navigate to the start URL under the init-navigation
// timeout, retry transient failures (connection refused/reset, DNS, timeout, 5xx, 429) with
// exponential backoff, and refuse a start page that is a bot wall. Failure is an EpisodeEnd:
// INIT_ERROR with a reason code, or ENV_ERROR `bot_wall` for a wall (a site failure in docs/design.md §5,
// never retried: walls do not clear for an agent that cannot solve them).
import type { Response } from 'playwright-core';
import { bounded, settleWithin, sleep } from './async-util.js';
import { detectWall } from './bot-wall.js';
import { EpisodeEnd } from './errors.js';
import { callInjected } from './injected-script.js';
import type { EpisodeSession } from './episode-session.js';
import type { Logger } from '@owrl/core';
import { classifyHttpStatus, isTransientStatus } from './net-errors.js';
import type { EnvTimeouts } from './options.js';

export interface InitOptions {
  timeouts: Pick<EnvTimeouts, 'initNavigationMs' | 'initRetries'>;
  /** First retry delay, doubled per attempt. */
  backoffMs: number;
  signal: AbortSignal;
  log: Logger;
  /** Told the number of the attempt being made (for diagnostics). */
  attempts(n: number): void;
}

/**
 * Loads `url` in the session's active tab, at most 1 + initRetries times.
 * @throws EpisodeEnd(INIT_ERROR, reason) when it never becomes usable, EpisodeEnd(ENV_ERROR,
 *   bot_wall) when it is a captcha or challenge page; the abort reason when aborted.
 */
export async function navigateInitially(s: EpisodeSession, url: string, o: InitOptions): Promise<void> {
  const { initNavigationMs, initRetries } = o.timeouts;
  const total = initRetries + 1;
  let last: EpisodeEnd | null = null;
  for (let a = 1; a <= total; a++) {
    o.attempts(a);
    const page = s.active;
    if (a > 1) {
      // a timed-out load is still pending in the tab: cancel it, or the retry waits behind it
      if (last?.code === 'timeout') await settleWithin(page.goto('about:blank', { timeout: 2000 }), 2500, null);
      await sleep(o.backoffMs * 2 ** (a - 2), o.signal);
    }
    let resp: Response | null;
    const started = performance.now();
    try {
      resp = await bounded(
        page.goto(url, { waitUntil: 'domcontentloaded', timeout: initNavigationMs }),
        initNavigationMs + 2000,
        () => Object.assign(new Error(`Timeout ${initNavigationMs}ms exceeded`), { name: 'TimeoutError' }),
        o.signal,
      );
    } catch (e) {
      if (o.signal.aborted) throw o.signal.reason;
      const err = e as Error;
      const f = await s.navFailure(page, err.message ?? String(e), err.name === 'TimeoutError', started);
      const chromium = err.message?.split('\n')[0] ?? '';
      // a failure the fence explains names what the fence saw; Chromium only saw the proxy give up
      const cause = 'detail' in f ? new Error(`${f.detail} (${chromium})`, { cause: e }) : e;
      if (f.code === 'blocked') throw new EpisodeEnd('INIT_ERROR', 'blocked_url', `${url} or a redirect from it leads to a private address`, { cause });
      if (f.code === 'target_closed') throw e;
      last = new EpisodeEnd('INIT_ERROR', f.code, `loading ${url} failed (attempt ${a}/${total}): ${'detail' in f ? f.detail : chromium}`, { cause });
      o.log.debug({ url, attempt: a, reason: f.code }, 'init navigation failed');
      if (!f.transient) throw last;
      continue;
    }
    const status = resp?.status() ?? 0;
    const signals = await settleWithin(callInjected(page, 'wallSignals'), 3000, null);
    const wall = signals ? detectWall(signals) : null;
    if (wall) throw new EpisodeEnd('ENV_ERROR', 'bot_wall', `${wall.kind} at ${url} (${wall.marker}), HTTP ${status}`);
    const code = classifyHttpStatus(status);
    if (!code) return;
    last = new EpisodeEnd('INIT_ERROR', code, `HTTP ${status} at ${url} (attempt ${a}/${total})`);
    o.log.debug({ url, attempt: a, status }, 'init navigation got an error status');
    if (!isTransientStatus(status)) throw last;
  }
  throw last ?? new EpisodeEnd('INIT_ERROR', 'navigation_failed', `${url} never became usable`);
}

// Per-session state of the wiki: the reading list, how many article pages were viewed (the digest
// popup shows from the second), the popup and cookie choices, and the seeded "random article" draws.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fnv1a } from '@owrl/core';
import { SESSION_COOKIE, SESSION_PARAM } from '@owrl/tasks';
import type { WikiData } from '@owrl/tasks/wiki';
import { parseCookies } from '../http-util.js';
import type { Notice, SessionState } from '../session-store.js';
import { peekSiteData, siteData } from '../site.js';

export const WIKI_NAME = 'Lorewell';
const SLOT = 'wiki';

/** Article views after which the digest popup shows (until dismissed). */
export const DIGEST_AFTER_VIEWS = 2;

export interface WikiState {
  /** Session id the random-article draws are seeded with. */
  key: string;
  /** Saved article slugs, in the order saved. */
  saved: string[];
  /** Article pages served in this session. */
  articleViews: number;
  digest: 'pending' | 'dismissed' | 'subscribed';
  consent: 'unset' | 'accepted' | 'rejected';
  /** Random-article links followed so far. */
  randomDraws: number;
  /** Shown once on the next page, then cleared. */
  notice: Notice | undefined;
}

/** Session id of the request: query parameter, cookie, or the cookie the server is setting now. */
function sessionKey(req: IncomingMessage, url: URL, res: ServerResponse): string {
  const fromQuery = url.searchParams.get(SESSION_PARAM);
  if (fromQuery) return fromQuery;
  const fromCookie = parseCookies(req.headers.cookie).get(SESSION_COOKIE);
  if (fromCookie) return fromCookie;
  const set = res.getHeader('Set-Cookie');
  const line = Array.isArray(set) ? set.join(';') : String(set ?? '');
  return parseCookies(line).get(SESSION_COOKIE) ?? '';
}

export function wikiState(session: SessionState, req: IncomingMessage, url: URL, res: ServerResponse): WikiState {
  return siteData<WikiState>(session, SLOT, () => ({
    key: sessionKey(req, url, res),
    saved: [],
    articleViews: 0,
    digest: 'pending',
    consent: 'unset',
    randomDraws: 0,
    notice: undefined,
  }));
}

/** The reading list of a session without creating its state (verifier reads). */
export function savedOf(session: SessionState | undefined): readonly string[] {
  return peekSiteData<WikiState>(session, SLOT)?.saved ?? [];
}

/** Whether the digest popup covers the next article page. */
export function digestDue(state: WikiState): boolean {
  return state.digest === 'pending' && state.articleViews >= DIGEST_AFTER_VIEWS;
}

/** Slug of the next random article: a function of the data seed, the session and the draw count. */
export function nextRandomArticle(data: WikiData, state: WikiState): string {
  const i = fnv1a(`${state.key}#${state.randomDraws}`, data.seed >>> 0) % data.articles.length;
  state.randomDraws++;
  return data.articles[i]?.slug ?? data.featured;
}

// Request handling of the wiki under /wiki/: pages, search (an exact title goes straight to the
// article), the seeded random article, and the form posts of the reading list, the digest popup and
// the cookie bar (JSON for the page script, else a 303 back with a one-shot notice).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { findColumn, findList, searchWiki, type WikiColumnKey, type WikiData, type WikiList, type WikiSortOrder } from '@owrl/tasks/wiki';
import { hereOf, readForm, redirect, safeDecode, sendHtml, sendJson } from '../http-util.js';
import type { SessionState } from '../session-store.js';
import { articlePage } from './article-page.js';
import type { WikiPageContext } from './layout.js';
import { allPagesPage, categoriesIndexPage, categoryPage, listPage, mainPage, notFoundPage, readingListPage, searchPage } from './pages.js';
import { nextRandomArticle, wikiState, type WikiState } from './wiki-state.js';

const POST_PATHS = new Set(['Special:ReadingList/add', 'Special:ReadingList/remove', 'Special:Digest', 'Special:Consent']);
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A return path from a form: only paths of this wiki, else its main page. */
function safeBack(v: string | null): string {
  return v !== null && v.startsWith('/wiki/') && !/[\\\s]/.test(v) ? v : '/wiki/';
}

function parseSort(list: WikiList, url: URL): { sort: WikiColumnKey; order: WikiSortOrder } {
  const key = url.searchParams.get('sort') ?? 'name';
  const sort = findColumn(list, key)?.key ?? 'name';
  return { sort, order: url.searchParams.get('order') === 'desc' ? 'desc' : 'asc' };
}

/** Answers a form post: JSON to the page script, else a redirect back with the notice. */
function answer(req: IncomingMessage, res: ServerResponse, state: WikiState, back: string, status: number, body: { ok: boolean; text: string } & Record<string, unknown>): void {
  if ((req.headers.accept ?? '').includes('application/json')) {
    sendJson(res, status, body);
    return;
  }
  if (body.text !== '') state.notice = { kind: body.ok ? 'ok' : 'error', text: body.text };
  redirect(res, 303, back);
}

async function handlePost(req: IncomingMessage, res: ServerResponse, name: string, data: WikiData, state: WikiState): Promise<void> {
  const form = await readForm(req);
  const back = safeBack(form.get('back'));
  switch (name) {
    case 'Special:ReadingList/add':
    case 'Special:ReadingList/remove': {
      const slug = form.get('slug') ?? '';
      const a = data.bySlug.get(slug);
      if (a === undefined) {
        answer(req, res, state, back, 404, { ok: false, text: `There is no article "${slug}" to save or remove.` });
        return;
      }
      const adding = name.endsWith('/add');
      if (adding && !state.saved.includes(slug)) state.saved.push(slug);
      if (!adding) state.saved = state.saved.filter((s) => s !== slug);
      const text = adding ? `Saved to your reading list: ${a.title}` : `Removed from your reading list: ${a.title}`;
      answer(req, res, state, back, 200, { ok: true, text, saved: adding, count: state.saved.length });
      return;
    }
    case 'Special:Digest': {
      const action = form.get('digest');
      if (action === 'dismiss') {
        state.digest = 'dismissed';
        answer(req, res, state, back, 200, { ok: true, text: '' });
      } else if (action === 'subscribe') {
        const email = (form.get('email') ?? '').trim();
        if (!EMAIL.test(email)) {
          answer(req, res, state, back, 400, { ok: false, text: `"${email}" is not an email address: enter one like name@example.com.` });
          return;
        }
        state.digest = 'subscribed';
        answer(req, res, state, back, 200, { ok: true, text: `Subscribed to the weekly digest: ${email}` });
      } else {
        answer(req, res, state, back, 400, { ok: false, text: `Unknown digest action "${action ?? ''}".` });
      }
      return;
    }
    case 'Special:Consent': {
      const choice = form.get('choice');
      if (choice !== 'accept' && choice !== 'reject') {
        answer(req, res, state, back, 400, { ok: false, text: `Unknown cookie choice "${choice ?? ''}".` });
        return;
      }
      state.consent = choice === 'accept' ? 'accepted' : 'rejected';
      answer(req, res, state, back, 200, { ok: true, text: '' });
      return;
    }
  }
}

/**
 * Handles a request whose path starts with /wiki/. Returns false when the method is not one the
 * wiki serves at that path (the caller answers 405).
 */
export async function handleWiki(req: IncomingMessage, res: ServerResponse, url: URL, data: WikiData, session: SessionState): Promise<boolean> {
  const state = wikiState(session, req, url, res);
  const get = req.method === 'GET' || req.method === 'HEAD';
  const name = safeDecode(url.pathname.slice('/wiki/'.length)).replace(/\/$/, '');
  const ctx = (): WikiPageContext => {
    const notice = state.notice;
    state.notice = undefined;
    return { data, state, here: hereOf(url), notice };
  };

  if (POST_PATHS.has(name)) {
    if (req.method !== 'POST') return false;
    await handlePost(req, res, name, data, state);
    return true;
  }
  if (!get) return false;
  if (name === '') {
    sendHtml(res, 200, mainPage(ctx()));
    return true;
  }
  switch (name) {
    case 'Special:Search': {
      const q = (url.searchParams.get('q') ?? '').slice(0, 200);
      const result = searchWiki(data, q);
      if (result.exact !== undefined) redirect(res, 302, `/wiki/${result.exact}`);
      else sendHtml(res, 200, searchPage(ctx(), q, result.hits));
      return true;
    }
    case 'Special:Random':
      redirect(res, 302, `/wiki/${nextRandomArticle(data, state)}`);
      return true;
    case 'Special:ReadingList':
      sendHtml(res, 200, readingListPage(ctx()));
      return true;
    case 'Special:AllPages':
      sendHtml(res, 200, allPagesPage(ctx()));
      return true;
    case 'Special:Categories':
      sendHtml(res, 200, categoriesIndexPage(ctx()));
      return true;
  }
  const category = data.categoryBySlug.get(name);
  if (category !== undefined) {
    sendHtml(res, 200, categoryPage(ctx(), category));
    return true;
  }
  const list = findList(name);
  if (list !== undefined) {
    const { sort, order } = parseSort(list, url);
    sendHtml(res, 200, listPage(ctx(), list, sort, order));
    return true;
  }
  const article = data.bySlug.get(name);
  if (article !== undefined) {
    if (req.method === 'GET') state.articleViews++;
    sendHtml(res, 200, articlePage(ctx(), article));
    return true;
  }
  sendHtml(res, 404, notFoundPage(ctx(), `${name.startsWith('Category:') ? 'There is no category' : 'There is no article'} called "${name.replace(/_/g, ' ')}".`));
  return true;
}

// Request handling of the web mail under /mail/: list pages, messages (opening marks read),
// compose/reply/forward, and the form POSTs (star, archive, delete, move, unread, label, send,
// cookie choice), each answered with a 303 redirect and a one-shot notice.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  isTaskError,
} from '@owrl/tasks';
import {
  listMailView,
  mailEntry,
  parseMailLabel,
  parseMailRecipients,
  searchMail,
  sendMail,
  type MailData,
  type MailEntry,
  type MailFolder,
} from '@owrl/tasks/mail';
import { hereOf, readForm, redirect, safeDecode, sendHtml } from '../http-util.js';
import type { Html } from '../html.js';
import type { LayoutContext } from './mail-layout.js';
import { composePage, draftFor, emptyDraft } from './mail-compose.js';
import { contactsPage, FOLDER_TITLES, listPage, messagePage, notFoundPage } from './mail-pages.js';
import { safeBack, type ComposeDraft, type MailSession } from './mail-session.js';

const FOLDER_PATHS: Record<string, MailFolder> = { sent: 'sent', archive: 'archive', trash: 'trash' };

function pageParam(url: URL): number {
  const raw = url.searchParams.get('page') ?? '1';
  return /^\d{1,4}$/.test(raw) ? Math.max(1, Number(raw)) : 1;
}

/** Name of the list the session returns to, for "Back to …" links. */
function listName(path: string): string {
  if (path.startsWith('/mail/search')) return 'search results';
  if (path.startsWith('/mail/starred')) return 'Starred';
  const folder = /^\/mail\/folder\/([a-z]+)/.exec(path)?.[1];
  if (folder !== undefined && FOLDER_PATHS[folder]) return FOLDER_TITLES[FOLDER_PATHS[folder]];
  const label = /^\/mail\/label\/([a-z]+)/.exec(path)?.[1];
  if (label !== undefined) return parseMailLabel(label) ?? 'Inbox';
  return 'Inbox';
}

/**
 * Handles a request whose path starts with /mail/. Returns false when the method is not served
 * at that path (the caller answers 405).
 */
export async function handleMail(req: IncomingMessage, res: ServerResponse, url: URL, data: MailData, state: MailSession): Promise<boolean> {
  const path = url.pathname;
  const get = req.method === 'GET' || req.method === 'HEAD';
  const post = req.method === 'POST';
  const ctx = (extra: Partial<LayoutContext> = {}): LayoutContext => ({ data, state, here: hereOf(url), ...extra });
  const show = (page: Html, status = 200): true => {
    sendHtml(res, status, page);
    return true;
  };
  const list = (title: string, entries: readonly MailEntry[], current: string, opts: { paged: boolean; showFolder: boolean; empty: string; query?: string }): true => {
    state.lastList = hereOf(url);
    const c = ctx({ current, ...(opts.query !== undefined ? { query: opts.query } : {}) });
    return show(listPage(c, { title, entries, empty: opts.empty, showFolder: opts.showFolder, ...(opts.paged ? { page: pageParam(url) } : {}) }));
  };

  if (get) {
    if (path === '/mail/') {
      return list('Inbox', listMailView(data, state.box, { kind: 'folder', folder: 'inbox' }), 'inbox', { paged: true, showFolder: false, empty: 'Your inbox is empty.' });
    }
    if (path === '/mail/folder/inbox') {
      redirect(res, 301, '/mail/');
      return true;
    }
    const folder = /^\/mail\/folder\/([a-z]+)$/.exec(path)?.[1];
    if (folder !== undefined && FOLDER_PATHS[folder] !== undefined) {
      const f = FOLDER_PATHS[folder];
      return list(FOLDER_TITLES[f], listMailView(data, state.box, { kind: 'folder', folder: f }), f, { paged: true, showFolder: false, empty: `No messages in ${FOLDER_TITLES[f]}.` });
    }
    if (path === '/mail/starred') {
      return list('Starred', listMailView(data, state.box, { kind: 'starred' }), 'starred', { paged: true, showFolder: true, empty: 'No starred messages.' });
    }
    const labelSlug = /^\/mail\/label\/([^/]+)$/.exec(path)?.[1];
    if (labelSlug !== undefined) {
      const label = parseMailLabel(safeDecode(labelSlug));
      if (label === undefined) return show(notFoundPage(ctx(), `There is no label "${safeDecode(labelSlug)}".`), 404);
      return list(label, listMailView(data, state.box, { kind: 'label', label }), label, { paged: true, showFolder: true, empty: `No messages labelled ${label}.` });
    }
    if (path === '/mail/search') {
      const q = (url.searchParams.get('q') ?? '').slice(0, 200);
      const found = searchMail(data, state.box, q);
      const title = q.trim() === '' ? 'Search' : `Search results for "${q.trim()}"`;
      const empty = q.trim() === '' ? 'Type a name, a subject or a word to search your mail.' : `No messages match "${q.trim()}".`;
      return list(title, found, 'search', { paged: false, showFolder: true, empty, query: q });
    }
    if (path === '/mail/contacts') return show(contactsPage(ctx({ current: 'contacts' })));
    if (path === '/mail/compose') {
      const draft = url.searchParams.has('draft') && state.draft ? state.draft : emptyDraft((url.searchParams.get('to') ?? '').slice(0, 500));
      const original = draft.replyTo ?? draft.forwardOf;
      return show(composePage(ctx(), draft, original ? mailEntry(data, state.box, original)?.message : undefined));
    }
    const msg = /^\/mail\/m\/([^/]+)(?:\/(reply|reply-all|forward))?$/.exec(path);
    if (msg) {
      const id = safeDecode(msg[1] ?? '');
      const e = mailEntry(data, state.box, id);
      if (e === undefined) return show(notFoundPage(ctx(), `There is no message "${id}".`), 404);
      const mode = msg[2] as 'reply' | 'reply-all' | 'forward' | undefined;
      if (mode !== undefined) return show(composePage(ctx(), draftFor(e.message, mode), e.message));
      e.flags.unread = false;
      return show(messagePage(ctx({ current: e.flags.folder }), e, listName(state.lastList)));
    }
    return show(notFoundPage(ctx(), `There is no page ${path}.`), 404);
  }

  if (!post) return false;
  if (path === '/mail/cookies') {
    const form = await readForm(req);
    const choice = form.get('choice');
    if (choice === 'accept' || choice === 'reject') state.cookies = choice === 'accept' ? 'accepted' : 'rejected';
    redirect(res, 303, safeBack(form.get('back')));
    return true;
  }
  if (path === '/mail/send') return send(req, res, data, state);
  if (path === '/mail/star') {
    const form = await readForm(req);
    const e = mailEntry(data, state.box, form.get('id') ?? '');
    if (e === undefined) return show(notFoundPage(ctx(), `There is no message "${form.get('id') ?? ''}".`), 404);
    e.flags.starred = !e.flags.starred;
    redirect(res, 303, safeBack(form.get('back')));
    return true;
  }
  const action = /^\/mail\/m\/([^/]+)\/(star|archive|delete|inbox|unread|label)$/.exec(path);
  if (action) {
    const form = await readForm(req);
    const id = safeDecode(action[1] ?? '');
    const e = mailEntry(data, state.box, id);
    if (e === undefined) return show(notFoundPage(ctx(), `There is no message "${id}".`), 404);
    const subject = e.message.subject;
    switch (action[2]) {
      case 'star':
        e.flags.starred = !e.flags.starred;
        redirect(res, 303, safeBack(form.get('back')));
        return true;
      case 'label': {
        const label = parseMailLabel(form.get('label') ?? '');
        if (label === undefined) {
          state.notice = { kind: 'error', text: `There is no label "${form.get('label') ?? ''}".` };
        } else if (e.flags.labels.includes(label)) {
          e.flags.labels = e.flags.labels.filter((l) => l !== label);
          state.notice = { kind: 'ok', text: `Removed the label ${label}.` };
        } else {
          e.flags.labels = [...e.flags.labels, label];
          state.notice = { kind: 'ok', text: `Added the label ${label}.` };
        }
        redirect(res, 303, `/mail/m/${e.message.id}`);
        return true;
      }
      case 'archive':
        if (e.flags.folder === 'inbox') e.flags.folder = 'archive';
        state.notice = { kind: 'ok', text: `Archived "${subject}".` };
        break;
      case 'delete':
        e.flags.folder = 'trash';
        state.notice = { kind: 'ok', text: `Moved "${subject}" to Trash.` };
        break;
      case 'inbox':
        e.flags.folder = e.message.folder === 'sent' ? 'sent' : 'inbox';
        state.notice = { kind: 'ok', text: `Moved "${subject}" to ${FOLDER_TITLES[e.flags.folder]}.` };
        break;
      case 'unread':
        e.flags.unread = true;
        state.notice = { kind: 'ok', text: `Marked "${subject}" as unread.` };
        break;
    }
    redirect(res, 303, state.lastList);
    return true;
  }
  return false;
}

async function send(req: IncomingMessage, res: ServerResponse, data: MailData, state: MailSession): Promise<true> {
  const form = await readForm(req);
  const opt = (k: string): string | undefined => {
    const v = form.get(k);
    return v === null || v === '' ? undefined : v;
  };
  const draft: ComposeDraft = {
    title: ['New message', 'Reply', 'Reply all', 'Forward'].includes(form.get('title') ?? '') ? (form.get('title') as string) : 'New message',
    to: form.get('to') ?? '',
    cc: form.get('cc') ?? '',
    subject: form.get('subject') ?? '',
    body: form.get('body') ?? '',
    replyTo: opt('reply_to'),
    forwardOf: opt('forward_of'),
  };
  try {
    const to = parseMailRecipients(data, draft.to);
    const cc = parseMailRecipients(data, draft.cc);
    const m = sendMail(data, state.box, { to, cc, subject: draft.subject, body: draft.body, inReplyTo: draft.replyTo, forwardOf: draft.forwardOf });
    state.draft = undefined;
    state.notice = { kind: 'ok', text: `Message sent to ${m.to.map((a) => a.name).join(', ')}.` };
    redirect(res, 303, state.lastList);
  } catch (e) {
    if (!isTaskError(e)) throw e;
    state.draft = draft;
    state.notice = { kind: 'error', text: `Not sent: ${e.message}.` };
    redirect(res, 303, '/mail/compose?draft=1');
  }
  return true;
}

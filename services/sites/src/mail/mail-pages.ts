// Server-rendered pages of the web mail: message lists (inbox, folders, starred, labels, search
// results), a message, contacts, and not-found. Pure functions of the mailbox and session.
import {
  MAIL_LABELS,
  MAIL_ME,
  MAIL_PAGE_SIZE,
  mailLongDate,
  mailShortDate,
  mailSnippet,
  type MailAddress,
  type MailEntry,
  type MailFolder,
} from '@owrl/tasks/mail';
import { html, raw, type Html } from '../html.js';
import { mailLayout, takeNotice, type LayoutContext } from './mail-layout.js';

export const FOLDER_TITLES: Record<MailFolder, string> = { inbox: 'Inbox', archive: 'Archive', sent: 'Sent', trash: 'Trash' };

const isMe = (a: MailAddress): boolean => a.email === MAIL_ME.email;

function row(e: MailEntry, showFolder: boolean): Html {
  const m = e.message;
  const mine = isMe(m.from);
  const who = mine ? html`<span class="vh">To: </span>${m.to.map((a) => a.name).join(', ')}` : html`<span class="vh">From: </span>${m.from.name}`;
  const folder = showFolder && e.flags.folder !== 'inbox' ? html`<span class="chip folder">${FOLDER_TITLES[e.flags.folder]}</span>` : '';
  const chips = e.flags.labels.map((l) => html`<span class="chip">${l}</span>`);
  const n = m.attachments.length;
  const clip = n > 0 ? html`<span class="clip">${n} ${n === 1 ? 'file' : 'files'}</span>` : html`<span></span>`;
  const starLabel = e.flags.starred ? 'Unstar' : 'Star';
  return html`<li class="msg${e.flags.unread ? ' unread' : ''}" data-id="${m.id}">
<button class="star" type="submit" name="id" value="${m.id}" aria-label="${starLabel}" aria-pressed="${e.flags.starred ? 'true' : 'false'}">${e.flags.starred ? '★' : '☆'}</button>
<span class="from">${e.flags.unread ? html`<span class="dot" aria-hidden="true">●</span><span class="vh">Unread, </span>` : ''}${who}</span>
<span class="line">${folder}${chips}<a class="subj" href="/mail/m/${m.id}">${m.subject}</a><span class="snip"> — ${mailSnippet(m)}</span></span>
${clip}<time datetime="${m.date}"><span class="vh">${mine ? 'Sent' : 'Received'}: </span>${mailShortDate(m.date)}</time></li>`;
}

export interface ListPage {
  title: string;
  entries: readonly MailEntry[];
  /** 1-based page of a paged list; search results are not paged. */
  page?: number;
  /** Shown when the list is empty. */
  empty: string;
  /** Show each row's folder (search, starred and label views span folders). */
  showFolder: boolean;
}

/** A message list; `ctx.here` is where star buttons come back to. */
export function listPage(ctx: LayoutContext, p: ListPage): Html {
  const total = p.entries.length;
  let shown = p.entries;
  let range: Html = html`<p class="range">${total} ${total === 1 ? 'message' : 'messages'}</p>`;
  let pager: Html = html``;
  if (p.page !== undefined) {
    const pages = Math.max(1, Math.ceil(total / MAIL_PAGE_SIZE));
    const page = Math.min(Math.max(1, p.page), pages);
    const start = (page - 1) * MAIL_PAGE_SIZE;
    shown = p.entries.slice(start, start + MAIL_PAGE_SIZE);
    const path = ctx.here.split('?')[0] ?? '/mail/';
    range = total === 0 ? html`` : html`<p class="range">${start + 1}–${start + shown.length} of ${total}</p>`;
    const newer = page > 1 ? html`<a href="${path}?page=${page - 1}">Newer</a>` : '';
    const older = page < pages ? html`<a href="${path}?page=${page + 1}">Older</a>` : '';
    pager = newer || older ? html`<nav class="pager" aria-label="Pages">${newer}${older}</nav>` : html``;
  }
  const body =
    shown.length === 0
      ? html`<p>${p.empty}</p>`
      : html`<form method="post" action="/mail/star"><input type="hidden" name="back" value="${ctx.here}">
<ul class="msgs">${shown.map((e) => row(e, p.showFolder))}</ul></form>${pager}`;
  return mailLayout(ctx, p.title, html`<h1>${p.title}</h1>${takeNotice(ctx.state)}${range}${body}`);
}

function addressLine(list: readonly MailAddress[]): string {
  return list.map((a) => `${a.name} <${a.email}>`).join(', ');
}

/** A message with its actions; `backLabel` names the list the back link returns to. */
export function messagePage(ctx: LayoutContext, e: MailEntry, backLabel: string): Html {
  const m = e.message;
  const f = e.flags;
  const id = m.id;
  const act = (path: string, label: string, extra: Html | string = ''): Html =>
    html`<button type="submit" form="act" formaction="/mail/m/${id}/${path}"${extra}>${label}</button>`;
  const move =
    f.folder === 'inbox'
      ? act('archive', 'Archive')
      : f.folder === 'sent'
        ? html``
        : act('inbox', 'Move to Inbox');
  const del = f.folder === 'trash' ? html`` : act('delete', 'Delete');
  const star = act('star', f.starred ? 'Unstar' : 'Star', raw(` aria-pressed="${f.starred ? 'true' : 'false'}"`));
  const labels = MAIL_LABELS.map(
    (l) =>
      html`<button type="submit" form="act" formaction="/mail/m/${id}/label" name="label" value="${l}" aria-pressed="${f.labels.includes(l) ? 'true' : 'false'}">${l}</button>`,
  );
  const files =
    m.attachments.length === 0
      ? html``
      : html`<section class="files" aria-label="Attachments"><h2>Attachments (${m.attachments.length})</h2><ul>${m.attachments.map(
          (a) => html`<li><span class="fname">${a.name}</span> <span class="size">${a.sizeKb >= 1000 ? `${(a.sizeKb / 1000).toFixed(1)} MB` : `${a.sizeKb} KB`}</span></li>`,
        )}</ul></section>`;
  const body = html`${takeNotice(ctx.state)}<article class="message" data-message-id="${id}">
<h1>${m.subject}</h1>
<div class="actions" role="toolbar" aria-label="Message actions">
<a class="btn" href="/mail/m/${id}/reply">Reply</a><a class="btn" href="/mail/m/${id}/reply-all">Reply all</a><a class="btn" href="/mail/m/${id}/forward">Forward</a>
${move}${del}${star}${act('unread', 'Mark as unread')}</div>
<div class="meta"><p><span class="k">From:</span> ${addressLine([m.from])}</p><p><span class="k">To:</span> ${addressLine(m.to)}</p>
${m.cc.length > 0 ? html`<p><span class="k">Cc:</span> ${addressLine(m.cc)}</p>` : ''}<p><span class="k">Date:</span> ${mailLongDate(m.date)}</p>
${f.folder !== 'inbox' ? html`<p><span class="k">Folder:</span> ${FOLDER_TITLES[f.folder]}</p>` : ''}</div>
<div class="labels" role="group" aria-label="Labels"><span class="k">Labels</span>${labels}</div>
<div class="body">${m.lines.map((l) => html`<p>${l}</p>`)}</div>${files}
<p><a href="${ctx.state.lastList}">Back to ${backLabel}</a></p></article>
<form id="act" method="post" action="/mail/m/${id}/star"><input type="hidden" name="back" value="/mail/m/${id}"></form>`;
  return mailLayout(ctx, m.subject, body);
}

export function contactsPage(ctx: LayoutContext): Html {
  const cards = ctx.data.contacts.map(
    (c) => html`<li class="contact-card"><h2>${c.name}</h2><p class="role">${c.org ? `${c.title}, ${c.org}` : c.title}</p>
<p>Email: ${c.email}</p><div class="row"><p>Phone: ${c.phone}</p><a href="/mail/compose?to=${encodeURIComponent(`${c.name} <${c.email}>`)}">Write</a></div></li>`,
  );
  return mailLayout(ctx, 'Contacts', html`<h1>Contacts</h1>${takeNotice(ctx.state)}<ul class="people">${cards}</ul>`);
}

export function notFoundPage(ctx: LayoutContext, what: string): Html {
  return mailLayout(ctx, 'Not found', html`<h1>Not found</h1><p>${what}</p><p><a href="/mail/">Back to the Inbox</a></p>`);
}

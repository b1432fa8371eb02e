// Page frame of the bundled web mail "Lark Mail": header with search, mailbox sidebar (folders,
// labels, contacts), one-shot notices and the cookie bar; inline CSS, no external resources.
import { listMailView, MAIL_LABELS, type MailData } from '@owrl/tasks/mail';
import { html, raw, type Html } from '../html.js';
import type { MailSession } from './mail-session.js';

export const MAIL_NAME = 'Lark Mail';

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 "Trebuchet MS","Lucida Grande",Verdana,sans-serif;color:#1c2433;background:#f3f5fa}
a{color:#24579e}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.bar{display:flex;align-items:center;gap:22px;height:56px;padding:0 20px;background:#243b55;color:#fff}
.brand{color:#fff;font:700 20px/1 Georgia,"Times New Roman",serif;text-decoration:none;letter-spacing:.3px}
.brand b{color:#f2a541}
form.search{display:flex;align-items:center;gap:8px;flex:1;max-width:560px}
form.search label{font-size:12px;color:#c9d6ea}
form.search input{flex:1;padding:7px 10px;border:0;border-radius:18px;font:inherit}
form.search button{padding:6px 14px;border:1px solid #8fa6c6;border-radius:18px;background:transparent;color:#fff;font:inherit;cursor:pointer}
.who{margin-left:auto;font-size:13px;color:#c9d6ea}
.shell{display:grid;grid-template-columns:200px 1fr;min-height:calc(100vh - 56px)}
.side{background:#e6ecf5;padding:14px 12px;border-right:1px solid #d3dbe8}
.side .compose{display:block;text-align:center;padding:9px 0;margin-bottom:14px;border-radius:20px;background:#f2a541;color:#1c2433;font-weight:700;text-decoration:none}
.side ul{list-style:none;margin:0 0 12px;padding:0}
.side li{display:flex;justify-content:space-between;align-items:center;padding:4px 10px;border-radius:14px}
.side li a{text-decoration:none;color:#1c2433}
.side li.on{background:#c8d6ec;font-weight:700}
.side .count{font-size:12px;font-weight:700;color:#24579e}
.side h2{font-size:11px;text-transform:uppercase;letter-spacing:1px;color:#5d6b82;margin:10px 10px 4px}
main{padding:14px 22px 80px;min-width:0}
h1{font:600 22px/1.2 Georgia,"Times New Roman",serif;margin:2px 0 10px}
.range{color:#5d6b82;margin:0 0 8px;font-size:13px}
.notice{padding:8px 12px;border-radius:6px;background:#e2f3e8;border:1px solid #9fd1b0;margin:0 0 10px}
.notice.error{background:#fbe3df;border-color:#e6a397}
ul.msgs{list-style:none;margin:0;padding:0;background:#fff;border:1px solid #d3dbe8;border-radius:8px;overflow:hidden}
li.msg{display:grid;grid-template-columns:30px 180px minmax(0,1fr) auto 62px;align-items:center;gap:8px;height:38px;padding:0 10px;border-bottom:1px solid #e8edf5;background:#f8fafd}
li.msg.unread{background:#fff;font-weight:700}
li.msg:last-child{border-bottom:0}
li.msg .from,li.msg .line{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
li.msg .subj{color:#1c2433;text-decoration:none}
li.msg .subj:hover{text-decoration:underline}
li.msg .snip{color:#6b778c;font-weight:400}
li.msg .dot{color:#24579e;font-size:10px;margin-right:4px}
li.msg time{font-size:12px;color:#5d6b82;text-align:right}
li.msg .clip{font-size:11px;font-weight:400;color:#5d6b82;border:1px solid #c3cede;border-radius:8px;padding:0 6px}
button.star{border:0;background:none;font-size:18px;line-height:1;color:#9aa6b8;cursor:pointer;padding:0}
button.star[aria-pressed=true]{color:#e0a020}
.chip{display:inline-block;font-size:11px;font-weight:400;padding:0 7px;margin-right:4px;border-radius:9px;background:#dde6f4;color:#33425b}
.chip.folder{background:#f5e6cc}
.pager{display:flex;gap:14px;justify-content:flex-end;margin:8px 2px}
article.message{background:#fff;border:1px solid #d3dbe8;border-radius:8px;padding:16px 22px}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:0 0 12px}
.btn,.actions button,.labels button{font:inherit;font-size:13px;padding:5px 12px;border:1px solid #b9c6da;border-radius:16px;background:#f3f6fb;color:#1c2433;text-decoration:none;cursor:pointer}
.labels button[aria-pressed=true]{background:#243b55;color:#fff;border-color:#243b55}
.meta p{margin:2px 0;color:#33425b}
.k{color:#5d6b82;margin-right:4px}
.labels{display:flex;gap:6px;align-items:center;margin:10px 0}
.body{border-top:1px solid #e8edf5;margin-top:12px;padding-top:8px}
.body p{margin:6px 0}
.files ul{list-style:none;padding:0;display:flex;gap:10px;flex-wrap:wrap}
.files li{border:1px solid #d3dbe8;border-radius:6px;padding:6px 10px;background:#f8fafd}
.files .size{color:#6b778c;font-size:12px}
.files h2{font-size:14px;margin:14px 0 4px}
form.compose{background:#fff;border:1px solid #d3dbe8;border-radius:8px;padding:14px 18px;max-width:820px}
.field{display:grid;grid-template-columns:80px 1fr;align-items:start;gap:8px;margin:0 0 8px;position:relative}
.field label{padding-top:6px;color:#5d6b82}
.field input,.field textarea{font:inherit;padding:6px 8px;border:1px solid #c3cede;border-radius:6px;width:100%}
.suggest{grid-column:2;display:flex;flex-direction:column;border:1px solid #c3cede;border-radius:6px;background:#fff;box-shadow:0 4px 10px rgba(20,40,80,.12)}
.suggest[hidden]{display:none}
.suggest button{font:inherit;text-align:left;padding:6px 10px;border:0;background:#fff;cursor:pointer}
.suggest button:hover,.suggest button:focus{background:#e6ecf5}
.send-row{display:flex;gap:14px;align-items:center;margin-top:10px}
button.send{font:inherit;font-weight:700;padding:7px 22px;border:0;border-radius:18px;background:#24579e;color:#fff;cursor:pointer}
.quoted{max-width:820px;margin-top:12px;color:#5d6b82}
.quoted blockquote{margin:4px 0 0;padding-left:12px;border-left:3px solid #c3cede}
ul.people{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:8px}
.contact-card{background:#fff;border:1px solid #d3dbe8;border-radius:8px;padding:6px 12px;font-size:12.5px;line-height:1.35}
.contact-card h2{font-size:14px;margin:0}
.contact-card p{margin:1px 0;overflow-wrap:anywhere}
.contact-card .role{color:#5d6b82;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.contact-card .row{display:flex;justify-content:space-between}
.cookies{position:fixed;left:0;right:0;bottom:0;display:flex;gap:16px;align-items:center;justify-content:center;padding:10px 16px;background:#1c2433;color:#e6ecf5;font-size:13px}
.cookies p{margin:0}
.cookies form{display:flex;gap:8px}
.cookies button{font:inherit;padding:4px 14px;border-radius:14px;border:1px solid #8fa6c6;background:#243b55;color:#fff;cursor:pointer}
`;

export interface LayoutContext {
  data: MailData;
  state: MailSession;
  /** Path and query of this page (the cookie bar returns here). */
  here: string;
  /** Search box value. */
  query?: string;
  /** Sidebar entry to highlight: a folder, `starred`, a label name or `contacts`. */
  current?: string;
}

const FOLDER_LINKS = [
  { key: 'inbox', label: 'Inbox', href: '/mail/' },
  { key: 'starred', label: 'Starred', href: '/mail/starred' },
  { key: 'sent', label: 'Sent', href: '/mail/folder/sent' },
  { key: 'archive', label: 'Archive', href: '/mail/folder/archive' },
  { key: 'trash', label: 'Trash', href: '/mail/folder/trash' },
] as const;

function sidebar(ctx: LayoutContext): Html {
  const unread = listMailView(ctx.data, ctx.state.box, { kind: 'folder', folder: 'inbox' }).filter((e) => e.flags.unread).length;
  const item = (key: string, label: string, href: string, count?: Html): Html => {
    const on = ctx.current === key;
    return html`<li${on ? raw(' class="on"') : ''}><a href="${href}"${on ? raw(' aria-current="page"') : ''}>${label}</a>${count ?? ''}</li>`;
  };
  const folders = FOLDER_LINKS.map((f) =>
    item(f.key, f.label, f.href, f.key === 'inbox' && unread > 0 ? html`<span class="count" aria-label="${unread} unread">${unread}</span>` : undefined),
  );
  const labels = MAIL_LABELS.map((l) => item(l, l, `/mail/label/${l.toLowerCase()}`));
  return html`<nav class="side" aria-label="Mailbox"><a class="compose" href="/mail/compose">Compose</a>
<ul>${folders}</ul><h2>Labels</h2><ul>${labels}</ul><ul>${item('contacts', 'Contacts', '/mail/contacts')}</ul></nav>`;
}

function cookieBar(ctx: LayoutContext): Html {
  if (ctx.state.cookies !== undefined) return html``;
  return html`<div class="cookies" role="region" aria-label="Cookie consent"><p>${MAIL_NAME} uses cookies to keep you signed in and to measure how the app is used.</p>
<form method="post" action="/mail/cookies"><input type="hidden" name="back" value="${ctx.here}">
<button type="submit" name="choice" value="accept">Accept</button><button type="submit" name="choice" value="reject">Reject</button></form></div>`;
}

/** Shows and clears the session's one-shot notice. */
export function takeNotice(state: MailSession): Html {
  const n = state.notice;
  state.notice = undefined;
  if (n === undefined) return html``;
  return n.kind === 'error' ? html`<p class="notice error" role="alert">${n.text}</p>` : html`<p class="notice" role="status">${n.text}</p>`;
}

export function mailLayout(ctx: LayoutContext, title: string, body: Html, script?: string): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${MAIL_NAME}</title><style>${raw(CSS)}</style></head>
<body><header class="bar"><a class="brand" href="/mail/">Lark <b>Mail</b></a>
<form class="search" role="search" action="/mail/search" method="get"><label for="q">Search mail</label>
<input id="q" type="search" name="q" value="${ctx.query ?? ''}" placeholder="Names, subjects, words"><button type="submit">Search</button></form>
<span class="who">Sam Rivera</span></header>
<div class="shell">${sidebar(ctx)}<main>${body}</main></div>${cookieBar(ctx)}${script ? raw(`<script>${script}</script>`) : ''}</body></html>`;
}

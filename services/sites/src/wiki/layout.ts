// The frame of every wiki page: masthead with the search box, the site sidebar, the cookie bar and
// the "Subscribe to our digest" popup, with the wiki's own look (inline CSS) and a small script that
// sends the popup, cookie and reading-list forms without leaving the page.
import type { WikiData } from '@owrl/tasks/wiki';
import { html, raw, type Html } from '../html.js';
import type { Notice } from '../session-store.js';
import { WIKI_NAME, type WikiState } from './wiki-state.js';

export interface WikiPageContext {
  data: WikiData;
  state: WikiState;
  /** Path and query of the page being rendered (where forms come back to). */
  here: string;
  /** One-shot notice taken from the state for this render. */
  notice: Notice | undefined;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;background:#eef0ea;color:#1d2129;font:17px/1.6 "Iowan Old Style","Palatino Linotype",Georgia,serif}
a{color:#1f5fa8;text-decoration:none}a:hover{text-decoration:underline}
.masthead{display:flex;align-items:center;gap:28px;padding:10px 24px;background:#24324a;color:#f4efe1;border-bottom:4px solid #c9a54a}
.brand{color:#f4efe1;font-size:25px;font-variant:small-caps;letter-spacing:1px;line-height:1.1}
.brand small{display:block;font:12px system-ui,sans-serif;letter-spacing:.3px;color:#c9cfdb}
form.search{margin-left:auto;display:flex;gap:8px;align-items:center}
form.search label{font:13px system-ui,sans-serif;color:#c9cfdb}
form.search input{width:300px;font:15px system-ui,sans-serif;padding:6px 10px;border:1px solid #8a94a8;border-radius:3px}
button{font:14px system-ui,sans-serif;padding:6px 14px;border:1px solid #24324a;background:#24324a;color:#fff;border-radius:3px;cursor:pointer}
button.quiet{background:#fff;color:#24324a}
.frame{display:flex;max-width:1240px;margin:0 auto}
nav.side{width:180px;flex:none;padding:18px 16px;font:14px/1.5 system-ui,sans-serif}
nav.side h2{font:600 12px system-ui,sans-serif;text-transform:uppercase;letter-spacing:.8px;color:#5b6270;margin:14px 0 4px;border:0}
nav.side ul{list-style:none;margin:0;padding:0}nav.side li{margin:3px 0}
main{flex:1;min-width:0;background:#fff;border:1px solid #d5d9ce;border-top:0;padding:18px 32px 90px;margin-bottom:24px}
main p{max-width:46em}
h1{font-weight:normal;font-size:31px;margin:2px 0 2px;border-bottom:1px solid #c8ccc2;padding-bottom:4px}
h2{font-weight:normal;font-size:23px;border-bottom:1px solid #d8dbd2;margin:26px 0 8px}
.tagline{font:13px system-ui,sans-serif;color:#5b6270;margin:2px 0 8px}
.crumbs{font:13px system-ui,sans-serif;color:#5b6270}
.hatnote{font-style:italic;color:#4d5462;margin:0 0 24px;padding-left:22px}
.tools{display:flex;gap:10px;align-items:center;margin:2px 0 10px}
table.infobox{float:right;clear:right;width:310px;margin:0 0 16px 24px;background:#f5f2e7;border:1px solid #cfc6a8;border-collapse:collapse;font:14px/1.45 system-ui,sans-serif}
table.infobox caption{font:bold 17px Georgia,serif;padding:6px;background:#e6dfc8;border:1px solid #cfc6a8;border-bottom:0}
table.infobox td{padding:5px 10px;border-top:1px solid #e2dbc4;vertical-align:top}
table.infobox .k{display:inline-block;width:8.6em;font-weight:600;color:#4a4536}
.plate{height:110px;display:flex;align-items:center;justify-content:center;background:linear-gradient(135deg,#d9d0b2,#efe9d6);color:#6e6650;font-style:italic}
nav.toc{display:inline-block;background:#f7f8f5;border:1px solid #d5d9ce;padding:8px 22px 8px 14px;font:14px/1.6 system-ui,sans-serif;margin:6px 0 8px}
nav.toc h2{font:bold 14px system-ui,sans-serif;border:0;margin:0 0 4px}
nav.toc ol{margin:0;padding-left:22px}
table.data{border-collapse:collapse;font:14px/1.45 system-ui,sans-serif;margin:10px 0 16px;min-width:60%}
table.data caption{text-align:left;font-weight:600;padding:4px 0}
table.data th,table.data td{border:1px solid #cfd3c8;padding:5px 10px;text-align:left}
table.data thead th{background:#eceee7}
table.data .num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable thead th a{color:#1d2129}
table.sortable thead th[aria-sort=ascending]::after{content:" \\25B2";color:#1f5fa8}
table.sortable thead th[aria-sort=descending]::after{content:" \\25BC";color:#1f5fa8}
ul.entries{padding-left:20px}ul.entries li{margin:4px 0}
.snippet{color:#4d5462;font:14px system-ui,sans-serif}
.boxes{display:grid;grid-template-columns:1fr 1fr;gap:18px}
.box{border:1px solid #d5d9ce;background:#f7f8f5;padding:6px 16px 12px}
.box h2{font-size:19px;margin:6px 0}
.notice{font:14px system-ui,sans-serif;padding:8px 12px;background:#e7f1e2;border:1px solid #a8c99a;border-radius:3px;max-width:46em}
.notice.error{background:#f7e3df;border-color:#dba498}
.notice:empty{display:none}
footer.cats{clear:both;margin-top:28px;padding:8px 12px;border:1px solid #d5d9ce;background:#f7f8f5;font:13px system-ui,sans-serif}
footer.site{max-width:1240px;margin:0 auto 70px;padding:0 24px 0 212px;font:12px system-ui,sans-serif;color:#5b6270}
.cookie{position:fixed;left:0;right:0;bottom:0;display:flex;align-items:center;gap:18px;padding:10px 24px;background:rgba(36,50,74,.96);color:#f4efe1;font:14px system-ui,sans-serif;z-index:10;pointer-events:none}
.cookie p{margin:0;flex:1}
.cookie form{display:flex;gap:8px;pointer-events:auto}
.cookie button{background:#c9a54a;border-color:#c9a54a;color:#1d2129}
.cookie button.quiet{background:transparent;color:#f4efe1;border-color:#f4efe1}
.digest-layer{position:fixed;inset:0;z-index:20;display:flex;align-items:center;justify-content:center}
.digest-backdrop{position:absolute;inset:0;background:rgba(20,26,38,.6);backdrop-filter:blur(6px)}
.digest{position:relative;width:440px;background:#fffdf6;border-top:6px solid #c9a54a;border-radius:4px;padding:22px 26px;box-shadow:0 20px 60px rgba(0,0,0,.35);font:15px/1.5 system-ui,sans-serif}
.digest h2{font:24px Georgia,serif;border:0;margin:0 0 6px}
.digest .x{position:absolute;top:8px;right:10px;background:transparent;border:0;color:#5b6270;font-size:22px;padding:2px 8px}
.digest label{display:block;font-weight:600;margin:12px 0 4px}
.digest input{width:100%;font:15px system-ui,sans-serif;padding:7px 9px;border:1px solid #b9b29b;border-radius:3px}
.digest .row{display:flex;gap:10px;margin-top:14px}
`;

// Forms marked data-async are sent with fetch, so the popup, the cookie bar and the save button act
// in place (no new history entry); when fetch fails the form is submitted the ordinary way.
const SCRIPT = `
(function () {
  function flash(text) { var n = document.getElementById('flash'); if (n && text) { n.className = 'notice'; n.textContent = text; } }
  function apply(form, kind, j) {
    if (kind === 'digest') {
      var d = document.getElementById('digest'); if (d) d.remove();
      var p = document.getElementById('page'); if (p) p.removeAttribute('inert');
    } else if (kind === 'consent') {
      var c = document.getElementById('cookie-bar'); if (c) c.remove();
    } else if (kind === 'save') {
      form.setAttribute('action', j.saved ? '/wiki/Special:ReadingList/remove' : '/wiki/Special:ReadingList/add');
      var b = form.querySelector('button'); if (b) b.textContent = j.saved ? 'Remove from reading list' : 'Save to reading list';
      var n = document.getElementById('rl-count'); if (n) n.textContent = String(j.count);
    }
    flash(j.text);
  }
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.async) return;
    e.preventDefault();
    var kind = form.dataset.async, submitter = e.submitter || null;
    var body = new URLSearchParams(new FormData(form, submitter));
    fetch(form.getAttribute('action') || '', { method: 'POST', body: body, headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
      .then(function (j) { apply(form, kind, j); })
      .catch(function () { delete form.dataset.async; form.requestSubmit(submitter); });
  });
})();
`;

function noticeBlock(notice: Notice | undefined): Html {
  if (notice === undefined) return html`<p id="flash" class="notice" role="status"></p>`;
  return html`<p id="flash" class="notice${notice.kind === 'error' ? ' error' : ''}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${notice.text}</p>`;
}

function cookieBar(ctx: WikiPageContext): Html {
  if (ctx.state.consent !== 'unset') return html``;
  return html`<div id="cookie-bar" class="cookie" role="region" aria-label="Cookie consent">
<p>${WIKI_NAME} uses cookies to remember your reading list and to count which articles are read. You can accept or reject the counting cookies.</p>
<form method="post" action="/wiki/Special:Consent" data-async="consent"><input type="hidden" name="back" value="${ctx.here}">
<button type="submit" name="choice" value="accept">Accept</button><button type="submit" name="choice" value="reject" class="quiet">Reject</button></form></div>`;
}

function digestPopup(ctx: WikiPageContext): Html {
  return html`<div id="digest" class="digest-layer"><div class="digest-backdrop"></div>
<div class="digest" role="dialog" aria-modal="true" aria-labelledby="digest-title" aria-describedby="digest-text">
<h2 id="digest-title">Subscribe to our digest</h2>
<p id="digest-text">The best new and improved articles of the week in your inbox every Friday. Free, and you can unsubscribe at any time.</p>
<form method="post" action="/wiki/Special:Digest" data-async="digest"><input type="hidden" name="back" value="${ctx.here}">
<label for="digest-email">Email address</label><input id="digest-email" type="email" name="email" required autocomplete="email" placeholder="you@example.com">
<div class="row"><button type="submit" name="digest" value="subscribe">Subscribe</button><button type="submit" name="digest" value="dismiss" class="quiet" formnovalidate>No thanks</button></div></form>
<form method="post" action="/wiki/Special:Digest" data-async="digest"><input type="hidden" name="back" value="${ctx.here}">
<button type="submit" name="digest" value="dismiss" class="x" aria-label="Close" formnovalidate>&times;</button></form>
</div></div>`;
}

export interface LayoutOptions {
  /** Cover the page with the digest popup (article pages). */
  digest?: boolean;
}

export function layout(ctx: WikiPageContext, title: string, body: Html, opts: LayoutOptions = {}): Html {
  const popup = opts.digest === true;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — ${WIKI_NAME}</title><style>${raw(CSS)}</style></head>
<body><div id="page"${popup ? raw(' inert') : ''}>
<header class="masthead"><a class="brand" href="/wiki/">${WIKI_NAME}<small>The encyclopedia of the Far Reaches</small></a>
<form class="search" role="search" action="/wiki/Special:Search" method="get"><label for="wiki-q">Search ${WIKI_NAME}</label>
<input id="wiki-q" type="search" name="q" placeholder="Search the encyclopedia"><button type="submit">Search</button></form></header>
<div class="frame"><nav class="side" aria-label="Site"><h2>Navigation</h2><ul>
<li><a href="/wiki/">Main page</a></li><li><a href="/wiki/Special:AllPages">All articles</a></li>
<li><a href="/wiki/Special:Categories">Categories</a></li><li><a href="/wiki/Special:Random">Random article</a></li></ul>
<h2>Your account</h2><ul><li><a href="/wiki/Special:ReadingList">Reading list (<span id="rl-count">${ctx.state.saved.length}</span>)</a></li></ul></nav>
<main id="content">${noticeBlock(ctx.notice)}${body}</main></div>
<footer class="site"><p>Text is available for reading in this box only. ${WIKI_NAME} has ${ctx.data.articles.length} articles about the cities, rivers, people and inventions of the Far Reaches, a land that does not exist.</p></footer>
${cookieBar(ctx)}</div>${popup ? digestPopup(ctx) : ''}<script>${raw(SCRIPT)}</script></body></html>`;
}

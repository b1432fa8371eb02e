// The frame of every page of the travel site "Skyward": its look (navy and coral, inline CSS),
// header with the account, the one-shot notice and the non-modal cookie bar at the bottom.
import type { Notice } from '../session-store.js';
import { html, raw, type Html } from '../html.js';

export const TRAVEL_TITLE = 'Skyward';

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 "Avenir Next","Segoe UI",Helvetica,Arial,sans-serif;color:#13233a;background:#eef3f9;padding-bottom:72px}
a{color:#1d4e89}
.top{display:flex;align-items:center;gap:28px;padding:0 32px;height:60px;background:#0b2545;color:#fff;border-bottom:4px solid #e8553e}
.top a{color:#fff;text-decoration:none}
.brand{font-weight:800;font-size:21px;letter-spacing:1px}
.brand span{color:#f6a58f}
.top nav ul{display:flex;gap:18px;list-style:none;margin:0;padding:0}
.top nav a[aria-current]{border-bottom:2px solid #f6a58f}
.account{margin-left:auto;font-size:13px;color:#b9c8dc}
main{max-width:1120px;margin:0 auto;padding:18px 32px}
h1{font-size:24px;margin:6px 0 12px;color:#0b2545}
h2{font-size:18px;margin:14px 0 8px;color:#0b2545}
.notice{padding:9px 14px;border-radius:6px;background:#e2f3e8;border:1px solid #9fd0b0;margin:0 0 12px}
.notice.error{background:#fbe3de;border-color:#eea595}
.panel{background:#fff;border:1px solid #d5dfec;border-radius:10px;padding:16px 18px;margin:0 0 14px}
input,select{font:inherit;padding:6px 9px;border:1px solid #9fb2c9;border-radius:6px;background:#fff}
button,.btn{font:inherit;display:inline-block;padding:7px 16px;border:0;border-radius:6px;background:#e8553e;color:#fff;cursor:pointer;text-decoration:none;font-weight:600}
button.link{background:none;color:#1d4e89;padding:2px 0;font-weight:400;text-decoration:underline}
button:disabled{background:#c9d3df;cursor:default}
fieldset{border:0;padding:0;margin:0 0 10px}
legend{font-weight:700;font-size:13px;letter-spacing:.3px;color:#5a6d86;margin-bottom:4px}
.muted{color:#5a6d86;font-size:13px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #e3e9f2}
.cookie-bar{position:fixed;left:0;right:0;bottom:0;display:flex;gap:14px;align-items:center;justify-content:center;padding:10px 20px;background:#13233a;color:#e6edf6;font-size:13px}
.cookie-bar form{display:flex;gap:8px;margin:0}
.cookie-bar button{padding:5px 14px}
.cookie-bar button[value=reject]{background:#5a6d86}
[hidden]{display:none!important}
.hero{margin:4px 0 14px;color:#33496a}
.search .row{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start;margin-bottom:10px}
.field{display:flex;flex-direction:column;gap:3px;position:relative}
.field label{font-weight:600;font-size:13px}
.field input{width:230px}
.field input[type=number]{width:90px}
.field button.link{align-self:flex-start;text-align:left}
.choices{display:flex;gap:16px}
[role=listbox]{position:absolute;top:58px;left:0;z-index:5;min-width:260px;margin:0;padding:4px 0;list-style:none;background:#fff;border:1px solid #9fb2c9;border-radius:6px;box-shadow:0 6px 18px rgba(11,37,69,.18)}
[role=option]{padding:5px 12px;cursor:pointer}
[role=option] span{display:block;font-size:12px;color:#5a6d86}
[role=option][aria-selected=true]{background:#e3ecf7}
.calendar{position:absolute;top:84px;left:0;z-index:6;min-width:290px;background:#fff;border:1px solid #9fb2c9;border-radius:8px;padding:8px;box-shadow:0 8px 22px rgba(11,37,69,.2)}
.calendar table{width:auto}
.calendar th,.calendar td{padding:1px;border:0;text-align:center;font-size:12px}
.calendar td button{width:34px;padding:4px 0;background:#fff;color:#13233a;font-weight:400;border-radius:4px}
.calendar td button:hover{background:#e3ecf7}
.calendar td button:disabled{color:#b3bfcd;background:#fff}
.calendar td button[aria-pressed=true]{background:#0b2545;color:#fff}
.cal-head{display:flex;justify-content:space-between;align-items:center;gap:10px;margin-bottom:4px}
.cal-head button{padding:3px 9px;font-size:12px;background:#1d4e89;white-space:nowrap}
.results{display:grid;grid-template-columns:230px 1fr;gap:18px;align-items:start}
.filters label{display:block;font-size:14px}
.filters .max{display:flex;gap:6px;align-items:center}
.filters .max label{white-space:nowrap}
.filters .max input{width:80px}
.sort{display:flex;gap:14px;align-items:center;margin:0 0 10px;font-size:14px}
.sort::before{content:"Sort by";color:#5a6d86}
.sort a[aria-current]{font-weight:700;color:#0b2545;text-decoration:none;border-bottom:2px solid #e8553e}
.flights{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.flight-card{display:grid;grid-template-columns:1.3fr 1fr 1.3fr .8fr auto;gap:12px;align-items:center;background:#fff;border:1px solid #d5dfec;border-left:4px solid #1d4e89;border-radius:8px;padding:9px 14px}
.flight-card p{margin:0}
.times{font-size:17px}
.price{font-size:18px;font-weight:700;color:#0b2545}
.picked{border-left-color:#e8553e}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dt{color:#5a6d86}dd{margin:0}
.booking .ref{font-size:18px}
.total{font-weight:700}
`;

export interface LayoutOptions {
  /** Which top navigation entry is current. */
  current?: 'flights' | 'trips' | undefined;
  /** Inline script (trusted constant) appended to the body. */
  script?: string | undefined;
  /** Trusted JSON data for the script, in a `<script type="application/json" id="...">`. */
  data?: { id: string; json: string } | undefined;
}

export interface FrameState {
  notice: Notice | undefined;
  cookies: 'accepted' | 'rejected' | undefined;
  /** Path and query of this page (the cookie bar returns here). */
  here: string;
  account: string;
}

export function noticeBlock(notice: Notice | undefined): Html {
  if (notice === undefined) return html``;
  return notice.kind === 'error' ? html`<p class="notice error" role="alert">${notice.text}</p>` : html`<p class="notice" role="status">${notice.text}</p>`;
}

function cookieBar(st: FrameState): Html {
  if (st.cookies !== undefined) return html``;
  return html`<div class="cookie-bar" role="region" aria-label="Cookie consent"><span>Skyward uses cookies to remember your searches and measure how the site is used.</span>
<form method="post" action="/travel/cookies"><input type="hidden" name="back" value="${st.here}">
<button type="submit" name="choice" value="accept">Accept</button><button type="submit" name="choice" value="reject">Reject</button></form></div>`;
}

export function layout(st: FrameState, title: string, body: Html, opts: LayoutOptions = {}): Html {
  const cur = (k: LayoutOptions['current']) => (opts.current === k ? raw(' aria-current="page"') : '');
  // `</` cannot end the JSON early: the data is escaped for a script element.
  const data = opts.data ? raw(`<script type="application/json" id="${opts.data.id}">${opts.data.json.replace(/</g, '\\u003c')}</script>`) : '';
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${TRAVEL_TITLE}</title><style>${raw(CSS)}</style></head>
<body><header class="top"><a class="brand" href="/travel/">Sky<span>ward</span></a>
<nav aria-label="Main"><ul><li><a href="/travel/"${cur('flights')}>Flights</a></li><li><a href="/travel/trips"${cur('trips')}>My trips</a></li></ul></nav>
<span class="account">Signed in as ${st.account}</span></header>
<main>${noticeBlock(st.notice)}${body}</main>${cookieBar(st)}${data}${opts.script ? raw(`<script>${opts.script}</script>`) : ''}</body></html>`;
}

// Pages of the page-level faults: plain server error pages, a CDN-style "checking your browser"
// challenge interstitial, a captcha page with a recaptcha/hcaptcha-like widget, and the rewrites
// of a real page for slow client-side rendering and late DOM mutation. Pure functions.
import { fnv1a } from '@owrl/core';
import { html, raw, type Html } from '../html.js';

const REASONS: Record<number, [string, string]> = {
  403: ['Forbidden', "You don't have permission to view this page on this server."],
  429: ['Too Many Requests', 'You have sent too many requests in a given amount of time. Please wait and try again.'],
  500: ['Internal Server Error', 'The server encountered an unexpected condition that prevented it from fulfilling the request.'],
  502: ['Bad Gateway', 'The server, while acting as a gateway or proxy, received an invalid response from the upstream server.'],
  503: ['Service Unavailable', 'The server is temporarily unable to service your request due to maintenance downtime or capacity problems.'],
  504: ['Gateway Timeout', 'The server, while acting as a gateway or proxy, did not get a response in time from the upstream server.'],
};

/** A terse web-server error page for `code`. */
export function statusPage(code: number): Html {
  const [reason, text] = REASONS[code] ?? ['Error', 'The request failed.'];
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${code} ${reason}</title></head>
<body><center><h1>${code} ${reason}</h1></center><p>${text}</p><hr><center>owrl-sites</center></body></html>`;
}

/** A stable hex id (a "ray id") for a request, so walls of the same URL look the same. */
export function rayId(host: string, target: string): string {
  return (fnv1a(`${host}${target}`).toString(16) + fnv1a(target, 7).toString(16)).padStart(16, '0').slice(0, 16);
}

const WALL_CSS = `*{box-sizing:border-box;margin:0;padding:0}
html{line-height:1.15;color:#313131;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{display:flex;flex-direction:column;height:100vh;min-height:100vh}
.main-content{margin:8rem auto;max-width:60rem;padding-left:1.5rem;padding-right:1.5rem;width:100%}
.h1{font-size:2.5rem;font-weight:500;line-height:3.75rem}
.h2{font-size:1.5rem;font-weight:500;line-height:2.25rem;margin-top:1rem}
.core-msg{font-size:1rem;line-height:1.5rem;margin:2rem 0}
#challenge-stage{margin:2rem 0;height:65px;width:300px;border:1px solid #e0e0e0;border-radius:4px;display:flex;align-items:center;gap:12px;padding:0 16px;background:#fafafa}
.spinner{width:24px;height:24px;border:3px solid #d0d0d0;border-top-color:#f38020;border-radius:50%;animation:spin 1s linear infinite}
@keyframes spin{to{transform:rotate(360deg)}}
.footer{font-size:.75rem;line-height:1.125rem;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;width:100%;border-top:1px solid #d9d9d9}
.ray-id{text-align:center}.ray-id code{font-family:monaco,courier,monospace}`;

/**
 * A CDN-style JavaScript challenge interstitial ("Just a moment..."): the challenge markers real
 * walls carry (`#challenge-running`, `#challenge-stage`, `#challenge-form`), a spinner that never
 * finishes, and the "taking longer than expected" message after a while.
 */
export function botWallPage(host: string, target: string): Html {
  const ray = rayId(host, target);
  const token = fnv1a(`${ray}/tk`).toString(36);
  return html`<!DOCTYPE html>
<html lang="en-US"><head><meta charset="UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge">
<meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Just a moment...</title><style>${raw(WALL_CSS)}</style></head>
<body class="no-js"><div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">${host}</h1>
<h2 id="challenge-running" class="h2">Checking if the site connection is secure</h2>
<div id="challenge-stage"><div class="spinner" aria-hidden="true"></div><span id="challenge-status">Verifying you are human. This may take a few seconds.</span></div>
<div id="challenge-body-text" class="core-msg">${host} needs to review the security of your connection before proceeding.</div>
<noscript><div class="h2">Enable JavaScript and cookies to continue</div></noscript>
<form id="challenge-form" action="${target.split('?')[0] ?? '/'}?__cf_chl_f_tk=${token}" method="POST" enctype="application/x-www-form-urlencoded">
<input type="hidden" name="md" value="${token}"><input type="hidden" name="r" value="${ray}"></form>
</div></div>
<div class="footer" role="contentinfo"><div class="ray-id">Ray ID: <code>${ray}</code></div>
<div class="ray-id">Performance &amp; security by the site's CDN</div></div>
<script>setTimeout(function(){var s=document.getElementById('challenge-status');if(s)s.textContent='Verification is taking longer than expected. Check your Internet connection and refresh the page if the issue persists.';},8000);</script>
</body></html>`;
}

const CAPTCHA_CSS = `body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#f4f4f4;margin:0}
main{max-width:520px;margin:80px auto;background:#fff;border:1px solid #ddd;border-radius:6px;padding:28px}
h1{font-size:22px;margin:0 0 10px}
.widget{display:flex;align-items:center;justify-content:space-between;width:304px;height:78px;border:1px solid #d3d3d3;border-radius:3px;background:#f9f9f9;box-shadow:0 0 4px 1px rgba(0,0,0,.08);padding:0 12px;margin:18px 0}
.widget label{display:flex;align-items:center;gap:12px;font-size:14px;cursor:pointer}
.widget input{width:24px;height:24px}
.brand{font-size:10px;color:#555;text-align:center}
.err{color:#d93025;font-size:13px;min-height:18px}
button{font:inherit;padding:8px 18px;border:0;border-radius:4px;background:#1a73e8;color:#fff}`;

/**
 * A "verify you are human" page with a recaptcha- or hcaptcha-like widget (`.g-recaptcha` /
 * `.h-captcha` with a `data-sitekey`, the hidden response field, an "I'm not a robot" checkbox)
 * that never verifies: the check expires again and the form refuses to continue.
 */
export function captchaPage(provider: 'recaptcha' | 'hcaptcha', host: string, target: string): Html {
  const ray = rayId(host, target);
  const re = provider === 'recaptcha';
  const widgetClass = re ? 'g-recaptcha' : 'h-captcha';
  const responseName = re ? 'g-recaptcha-response' : 'h-captcha-response';
  const label = re ? "I'm not a robot" : 'I am human';
  const sitekey = re ? `6Lc${ray}AAAAA-owrl` : `${ray.slice(0, 8)}-owrl-${ray.slice(8)}`;
  const script = `(function(){var cb=document.getElementById('captcha-check'),err=document.getElementById('captcha-error');
cb.addEventListener('change',function(){if(!cb.checked)return;setTimeout(function(){cb.checked=false;err.textContent='Verification expired. Check the checkbox again.';},1500);});
document.getElementById('captcha-form').addEventListener('submit',function(e){e.preventDefault();err.textContent='Please complete the security check.';});})();`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Verify you are human</title><style>${raw(CAPTCHA_CSS)}</style></head>
<body><main><h1>One more step</h1>
<p>Our systems have detected unusual traffic from your computer network. Please complete the security check to continue to ${host}.</p>
<form id="captcha-form" action="${target.split('?')[0] ?? '/'}" method="post">
<div class="${widgetClass}" data-sitekey="${sitekey}" data-theme="light">
<div class="widget"><label for="captcha-check"><input type="checkbox" id="captcha-check" name="captcha-check">${label}</label>
<div class="brand">${re ? 'reCAPTCHA' : 'hCaptcha'}<br>Privacy - Terms</div></div>
<textarea id="${responseName}" name="${responseName}" style="display:none"></textarea></div>
<p id="captcha-error" class="err" role="alert"></p>
<button type="submit">Continue</button></form>
<p class="brand">Reference: ${ray}</p></main>
<script>${raw(script)}</script></body></html>`;
}

/** Splits a document at its body element; null when it has none. */
function splitBody(doc: string): { head: string; open: string; inner: string; tail: string } | null {
  const open = /<body\b[^>]*>/i.exec(doc);
  if (open === null) return null;
  const start = open.index + open[0].length;
  const close = doc.toLowerCase().lastIndexOf('</body>');
  const end = close >= start ? close : doc.length;
  return { head: doc.slice(0, open.index), open: open[0], inner: doc.slice(start, end), tail: doc.slice(end) };
}

const SPINNER = `<div id="owrl-loading" role="progressbar" aria-busy="true" aria-label="Loading" style="display:flex;align-items:center;justify-content:center;height:60vh">
<div style="width:40px;height:40px;border:4px solid #ddd;border-top-color:#555;border-radius:50%;animation:owrl-spin 1s linear infinite"></div>
<style>@keyframes owrl-spin{to{transform:rotate(360deg)}}</style></div>`;

/**
 * The page as a client-rendered app: the initial body is a spinner, the real body waits in a
 * `<template>` and replaces it `ms` after the document loaded (its scripts run then).
 */
export function slowRenderPage(doc: string, ms: number): string {
  const parts = splitBody(doc) ?? { head: '', open: '<body>', inner: doc, tail: '' };
  const script = `<script>(function(){function render(){var t=document.getElementById('owrl-deferred');document.body.replaceChildren(document.importNode(t.content,true));}` +
    `if(document.readyState==='complete')setTimeout(render,${ms});else addEventListener('load',function(){setTimeout(render,${ms});});})();</script>`;
  return `${parts.head}${parts.open}${SPINNER}<template id="owrl-deferred">${parts.inner}</template>${script}${parts.tail}`;
}

/**
 * The page plus an inline script that, `afterMs` after load, changes its interactive elements the
 * way late hydration, A/B tests and consent banners do: labels rewritten, list items reordered,
 * some links removed, and a cookie-consent dialog with two buttons added. Deterministic: the same
 * page always changes the same way.
 */
export function domMutationPage(doc: string, afterMs: number): string {
  const script = `<script>(function(){function mutate(){
var sel='a[href],button,input:not([type=hidden]),select,textarea';
var els=Array.prototype.slice.call(document.querySelectorAll(sel));
els.forEach(function(el,i){
if(i%4===1&&el.tagName==='A'){el.remove();return;}
if(i%3===2){if(el.tagName==='A'||el.tagName==='BUTTON'){el.textContent=el.textContent.trim()+' \\u203a';}else{el.setAttribute('aria-label',(el.getAttribute('aria-label')||el.name||'field')+' (updated)');}}
});
Array.prototype.forEach.call(document.querySelectorAll('ul,ol'),function(l){var items=Array.prototype.slice.call(l.children);if(items.length>1)items.reverse().forEach(function(c){l.appendChild(c);});});
var d=document.createElement('div');d.id='owrl-consent';d.setAttribute('role','dialog');d.setAttribute('aria-label','Cookie consent');
d.style.cssText='position:fixed;left:0;right:0;bottom:0;padding:14px 24px;background:#fff;border-top:2px solid #333;display:flex;gap:12px;align-items:center;z-index:2147483647';
d.innerHTML='<span>We use cookies to improve your experience.</span><button type="button">Accept all</button><button type="button">Reject all</button>';
Array.prototype.forEach.call(d.querySelectorAll('button'),function(b){b.addEventListener('click',function(){d.remove();});});
document.body.appendChild(d);document.documentElement.setAttribute('data-owrl-mutated','1');}
function arm(){setTimeout(mutate,${afterMs});}
if(document.readyState==='complete')arm();else addEventListener('load',arm);})();</script>`;
  const close = doc.toLowerCase().lastIndexOf('</body>');
  return close < 0 ? doc + script : doc.slice(0, close) + script + doc.slice(close);
}

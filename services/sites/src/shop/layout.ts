// The frame of every shop page "Owrl Goods": inline stylesheet (warm paper and walnut, serif
// headings), header with category navigation, orders and cart links, one-shot notices, product
// cards, and the non-modal cookie banner at the bottom until the session answers it.
import { formatPrice, type ShopCatalog, type ShopListingItem } from '@owrl/tasks/shop';
import { html, raw, type Html } from '../html.js';
import type { Notice, SessionState } from '../session-store.js';
import { cartCount, type ShopSessionData } from './shop-state.js';

export const SHOP_NAME = 'Owrl Goods';

export interface PageContext {
  catalog: ShopCatalog;
  /** Session state as shown (its notice already taken). */
  state: SessionState;
  shop: ShopSessionData;
  /** Path and query of this page, where the cookie banner returns to. */
  here: string;
}

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding-bottom:72px;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#2b2118;background:#fbf7f0}
a{color:#8a3b12}
h1,h2,.brand{font-family:"Iowan Old Style",Georgia,"Times New Roman",serif}
.top{display:flex;align-items:center;gap:22px;padding:10px 28px;background:#2b2118;color:#fbf7f0}
.top a{color:#fbf7f0;text-decoration:none}
.brand{font-weight:700;font-size:21px;letter-spacing:.5px}
.top nav ul{display:flex;gap:15px;list-style:none;margin:0;padding:0}
.top nav a:hover,.top nav a[aria-current]{text-decoration:underline}
.account{margin-left:auto;display:flex;gap:14px;align-items:center}
.cart-link{background:#e0a45c;color:#2b2118!important;padding:4px 12px;border-radius:14px;font-weight:600}
main{max-width:1120px;margin:0 auto;padding:14px 28px}
h1{margin:6px 0 12px;font-size:26px}
h2{font-size:18px;margin:14px 0 8px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:12px;list-style:none;margin:0;padding:0}
.listing .cards{grid-template-columns:repeat(3,1fr)}
.card{background:#fff;border:1px solid #e8dccb;border-radius:10px;padding:12px;display:flex;flex-direction:column;gap:4px}
.card a{font-weight:600}
.price{font-weight:700;color:#3d6b35}
.sort{margin:0 0 8px;display:flex;gap:14px;align-items:center;flex-wrap:wrap}
.sort a[aria-current]{font-weight:700;text-decoration:none;color:#2b2118}
.count{margin:0 0 10px;color:#7a6a58}
.listing{display:grid;grid-template-columns:236px 1fr;grid-template-areas:"filters results";gap:22px;align-items:start}
.results{grid-area:results}
.filters{grid-area:filters;background:#f3eadc;border:1px solid #e8dccb;border-radius:10px;padding:10px 12px;font-size:14px}
.filters summary{font-family:"Iowan Old Style",Georgia,serif;font-weight:700;font-size:16px;cursor:pointer}
.filters details[open] summary{margin-bottom:6px}
.filters fieldset{border:0;margin:0 0 8px;padding:0}
.filters legend{font-weight:600;padding:0;margin-bottom:2px}
.filters select,.filters .field>input{width:100%}
.filters .field{margin:0 0 8px}
.filters .field>label{display:block;font-weight:600}
.filters .prices{display:grid;grid-template-columns:1fr 1fr;gap:6px}
.opts{display:flex;flex-wrap:wrap;gap:4px 10px}
.opt{white-space:nowrap}
.filters .actions{display:flex;gap:10px;align-items:center}
form.search{display:flex;gap:8px;align-items:center;margin:6px 0 14px}
input,select{font:inherit;padding:5px 7px;border:1px solid #c9b79f;border-radius:6px;background:#fff}
input[type=radio],input[type=checkbox]{padding:0}
button{font:inherit;padding:6px 14px;border:0;border-radius:6px;background:#8a3b12;color:#fff;cursor:pointer}
.cta{display:inline-block;padding:7px 18px;border-radius:6px;background:#3d6b35;color:#fff!important;text-decoration:none;font-weight:600}
.notice{padding:8px 14px;border-radius:8px;background:#e3f1dc;border:1px solid #a9cf98}
.notice.error{background:#f8e0da;border-color:#e0a093}
.promo-strip{padding:8px 14px;border-radius:8px;background:#2b2118;color:#f6d9a8}
.product{display:grid;grid-template-columns:1fr 1fr;gap:28px;background:#fff;border:1px solid #e8dccb;border-radius:10px;padding:18px 20px}
.product h1{margin:0 0 6px}
.product .price{font-size:22px;margin:0}
.brandline{margin:0;color:#8a3b12;font-weight:600;text-transform:uppercase;letter-spacing:1px;font-size:12px}
.sizes{border:0;padding:0;margin:10px 0 0}
.sizes legend{font-weight:600;padding:0}
.sizes label.soldout{text-decoration:line-through;color:#9b8b7a}
.sizes small{color:#7a6a58}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
dt{color:#7a6a58}dd{margin:0}
.buy{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin-top:12px}
.buy input[type=number]{width:72px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:7px 10px;border-bottom:1px solid #e8dccb}
.total{font-weight:700;font-size:18px;margin-top:10px}
.checkout{display:grid;grid-template-columns:1.2fr 1fr;gap:26px;align-items:start}
.checkout fieldset{border:1px solid #e8dccb;border-radius:10px;background:#fff;margin:0 0 10px;padding:8px 14px 10px}
.checkout legend{font-weight:600}
.grid2{display:grid;grid-template-columns:max-content 1fr;gap:6px 10px;align-items:center}
.summary{background:#fff;border:1px solid #e8dccb;border-radius:10px;padding:12px 16px}
.summary table{font-size:14px}
.muted{color:#7a6a58}
.cookies{position:fixed;left:0;right:0;bottom:0;display:flex;gap:16px;align-items:center;justify-content:center;padding:10px 20px;background:#3b2f25;color:#fbf7f0;font-size:14px;box-shadow:0 -2px 8px rgba(0,0,0,.2)}
.cookies p{margin:0}
.cookies form{display:flex;gap:8px}
.cookies button{background:#e0a45c;color:#2b2118}
.cookies button[value=reject]{background:#fbf7f0}
`;

export function noticeBlock(notice: Notice | undefined): Html {
  if (notice === undefined) return html``;
  if (notice.kind === 'error') return html`<p class="notice error" role="alert">${notice.text}</p>`;
  return html`<p class="notice" role="status">${notice.text}</p>`;
}

function cookieBanner(ctx: PageContext): Html {
  if (ctx.shop.consent !== undefined) return html``;
  return html`<section class="cookies" aria-label="Cookie consent"><p>${SHOP_NAME} uses cookies to measure visits and tailor offers.</p>
<form method="post" action="/shop/consent"><input type="hidden" name="back" value="${ctx.here}">
<button type="submit" name="choice" value="accept">Accept</button><button type="submit" name="choice" value="reject">Reject</button></form></section>`;
}

export function layout(ctx: PageContext, title: string, body: Html, opts: { script?: string; current?: string } = {}): Html {
  const cats = ctx.catalog.categories.map(
    (c) => html`<li><a href="/shop/c/${c.slug}"${c.slug === opts.current ? raw(' aria-current="page"') : ''}>${c.name}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${SHOP_NAME}</title><style>${raw(CSS)}</style></head>
<body><header class="top"><a class="brand" href="/shop/">${SHOP_NAME}</a>
<nav aria-label="Categories"><ul>${cats}</ul></nav>
<div class="account"><a href="/shop/orders">Orders</a><a class="cart-link" href="/shop/cart">Cart (${cartCount(ctx.state)})</a></div></header>
<main>${body}</main>${cookieBanner(ctx)}${opts.script ? raw(`<script>${opts.script}</script>`) : ''}</body></html>`;
}

/** Product cards: name link and price (of the filtered size; its link preselects that size). */
export function cards(items: readonly ShopListingItem[], size?: string): Html {
  const li = items.map((it) => {
    const href = size === undefined ? `/shop/p/${it.product.id}` : `/shop/p/${it.product.id}?size=${encodeURIComponent(size)}`;
    return html`<li class="card"><a href="${href}">${it.product.name}</a><span class="price">${formatPrice(it.priceCents)}</span></li>`;
  });
  return html`<ul class="cards">${li}</ul>`;
}

export function notFoundPage(ctx: PageContext, what: string): Html {
  return layout(ctx, 'Not found', html`<h1>Not found</h1><p>${what}</p><p><a href="/shop/">Back to the shop</a></p>`);
}

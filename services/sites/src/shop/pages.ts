// Server-rendered pages of the bundled shop "Owrl Goods": small, semantic HTML (labels, buttons,
// links) with inline CSS and no client framework. Pure functions of the catalog and session state.
import { findCategory, formatPrice, listCategory, type ShopCatalog, type ShopProduct, type ShopSort } from '@owrl/tasks';
import { html, raw, type Html } from '../html.js';
import type { Notice, SessionState } from '../session-store.js';

export const SHOP_NAME = 'Owrl Goods';

const CSS = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#2b2118;background:#fbf7f0}
a{color:#8a3b12}
.top{display:flex;align-items:center;gap:24px;padding:12px 28px;background:#2b2118;color:#fbf7f0}
.top a{color:#fbf7f0;text-decoration:none}
.brand{font-weight:700;font-size:20px;letter-spacing:.5px}
.top nav ul{display:flex;gap:16px;list-style:none;margin:0;padding:0}
.top nav a:hover{text-decoration:underline}
.cart-link{margin-left:auto;background:#e0a45c;color:#2b2118!important;padding:4px 12px;border-radius:14px;font-weight:600}
main{max-width:1080px;margin:0 auto;padding:20px 28px}
h1{margin:8px 0 14px;font-size:26px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:14px;list-style:none;margin:0;padding:0}
.card{background:#fff;border:1px solid #e8dccb;border-radius:10px;padding:14px;display:flex;flex-direction:column;gap:6px}
.card a{font-weight:600}
.price{font-weight:700;color:#3d6b35}
.sort{margin:0 0 14px;display:flex;gap:14px;align-items:center}
.sort a[aria-current]{font-weight:700;text-decoration:none;color:#2b2118}
form.search{display:flex;gap:8px;align-items:center;margin:6px 0 18px}
input{font:inherit;padding:6px 8px;border:1px solid #c9b79f;border-radius:6px}
button{font:inherit;padding:6px 14px;border:0;border-radius:6px;background:#8a3b12;color:#fff;cursor:pointer}
.notice{padding:10px 14px;border-radius:8px;background:#e3f1dc;border:1px solid #a9cf98}
.notice.error{background:#f8e0da;border-color:#e0a093}
.product{display:grid;grid-template-columns:1fr 1fr;gap:28px;background:#fff;border:1px solid #e8dccb;border-radius:10px;padding:20px}
.product .price{font-size:22px;margin:0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}
dt{color:#7a6a58}dd{margin:0}
.buy{display:flex;gap:10px;align-items:center;margin-top:14px}
.buy input{width:72px}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid #e8dccb}
.total{font-weight:700;font-size:18px;margin-top:12px}
`;

// Enter in the quantity field must not submit the form: the add_qty tasks are defined as
// write quantity, then click "Add to cart" (see @owrl/tasks SHOP_FAMILIES).
const QTY_SCRIPT = `document.getElementById('qty').addEventListener('keydown',function(e){if(e.key==='Enter')e.preventDefault();});`;

export interface PageContext {
  catalog: ShopCatalog;
  state: SessionState;
}

function cartCount(state: SessionState): number {
  let n = 0;
  for (const q of state.cart.values()) n += q;
  return n;
}

function layout(ctx: PageContext, title: string, body: Html, opts: { script?: string; current?: string } = {}): Html {
  const cats = ctx.catalog.categories.map(
    (c) => html`<li><a href="/shop/c/${c.slug}"${c.slug === opts.current ? raw(' aria-current="page"') : ''}>${c.name}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${SHOP_NAME}</title><style>${raw(CSS)}</style></head>
<body><header class="top"><a class="brand" href="/shop/">${SHOP_NAME}</a>
<nav aria-label="Categories"><ul>${cats}</ul></nav>
<a class="cart-link" href="/shop/cart">Cart (${cartCount(ctx.state)})</a></header>
<main>${body}</main>${opts.script ? raw(`<script>${opts.script}</script>`) : ''}</body></html>`;
}

function noticeBlock(notice: Notice | undefined): Html {
  if (notice === undefined) return html``;
  if (notice.kind === 'error') return html`<p class="notice error" role="alert">${notice.text}</p>`;
  return html`<p class="notice" role="status">${notice.text}</p>`;
}

function cards(products: readonly ShopProduct[]): Html {
  const items = products.map(
    (p) => html`<li class="card"><a href="/shop/p/${p.id}">${p.name}</a><span class="price">${formatPrice(p.priceCents)}</span></li>`,
  );
  return html`<ul class="cards">${items}</ul>`;
}

function searchForm(query: string): Html {
  return html`<form class="search" role="search" action="/shop/search" method="get">
<label for="q">Search products</label><input id="q" type="search" name="q" value="${query}" placeholder="e.g. ceramic mug">
<button type="submit">Search</button></form>`;
}

export function homePage(ctx: PageContext): Html {
  const featured = ctx.catalog.featured.flatMap((id) => {
    const p = ctx.catalog.byId.get(id);
    return p ? [p] : [];
  });
  return layout(
    ctx,
    'Home',
    html`<h1>Welcome to ${SHOP_NAME}</h1>${noticeBlock(ctx.state.notice)}${searchForm('')}
<h2>Featured</h2>${cards(featured)}`,
  );
}

const SORT_LINKS: readonly { sort: ShopSort; label: string }[] = [
  { sort: 'price_asc', label: 'Price: low to high' },
  { sort: 'price_desc', label: 'Price: high to low' },
];

/** Category listing; undefined when the category does not exist. */
export function categoryPage(ctx: PageContext, slug: string, sort: ShopSort): Html | undefined {
  const cat = findCategory(ctx.catalog, slug);
  if (cat === undefined) return undefined;
  const products = listCategory(ctx.catalog, slug, sort);
  const links = SORT_LINKS.map(
    (l) => html`<a href="/shop/c/${slug}?sort=${l.sort}"${l.sort === sort ? raw(' aria-current="true"') : ''}>${l.label}</a>`,
  );
  return layout(
    ctx,
    cat.name,
    html`<h1>${cat.name}</h1>${noticeBlock(ctx.state.notice)}
<nav class="sort" aria-label="Sort"><span>Sort by</span>${links}</nav>${cards(products)}`,
    { current: slug },
  );
}

export function searchPage(ctx: PageContext, query: string, results: readonly ShopProduct[]): Html {
  const found =
    query.trim() === ''
      ? html`<p>Type a product name to search.</p>`
      : results.length === 0
        ? html`<p>No products match "${query}".</p>`
        : html`<p>${results.length} ${results.length === 1 ? 'result' : 'results'}</p>${cards(results)}`;
  return layout(ctx, query.trim() === '' ? 'Search' : `Search: ${query}`, html`<h1>Search results</h1>${searchForm(query)}${found}`);
}

export function productPage(ctx: PageContext, p: ShopProduct): Html {
  const cat = findCategory(ctx.catalog, p.category);
  return layout(
    ctx,
    p.name,
    html`${noticeBlock(ctx.state.notice)}<article class="product">
<div><h1>${p.name}</h1><p class="price">${formatPrice(p.priceCents)}</p><p class="sku">SKU: <span>${p.sku}</span></p>
<form class="buy" method="post" action="/shop/cart/add"><input type="hidden" name="id" value="${p.id}">
<label for="qty">Quantity</label><input id="qty" type="number" name="qty" value="1" min="1" max="${p.stock}">
<button type="submit">Add to cart</button></form></div>
<dl><dt>Category</dt><dd>${cat?.name ?? p.category}</dd><dt>Color</dt><dd>${p.color}</dd><dt>Material</dt><dd>${p.material}</dd>
<dt>Size</dt><dd>${p.size}</dd><dt>Rating</dt><dd>${p.rating.toFixed(1)} / 5</dd><dt>Stock</dt><dd>${p.stock} in stock</dd></dl>
</article>`,
    { script: QTY_SCRIPT, current: p.category },
  );
}

export function cartPage(ctx: PageContext): Html {
  const lines = [...ctx.state.cart].flatMap(([id, qty]) => {
    const p = ctx.catalog.byId.get(id);
    return p && qty > 0 ? [{ p, qty }] : [];
  });
  if (lines.length === 0) {
    return layout(ctx, 'Cart', html`<h1>Your cart</h1>${noticeBlock(ctx.state.notice)}<p>Your cart is empty.</p>`);
  }
  const total = lines.reduce((s, l) => s + l.p.priceCents * l.qty, 0);
  const rows = lines.map(
    ({ p, qty }) => html`<tr><td><a href="/shop/p/${p.id}">${p.name}</a></td><td>${qty}</td><td>${formatPrice(p.priceCents)}</td>
<td>${formatPrice(p.priceCents * qty)}</td><td><form method="post" action="/shop/cart/remove"><input type="hidden" name="id" value="${p.id}">
<button type="submit" aria-label="Remove ${p.name}">Remove</button></form></td></tr>`,
  );
  return layout(
    ctx,
    'Cart',
    html`<h1>Your cart</h1>${noticeBlock(ctx.state.notice)}<table><thead><tr><th>Product</th><th>Quantity</th><th>Price</th><th>Subtotal</th><th></th></tr></thead>
<tbody>${rows}</tbody></table><p class="total">Total: ${formatPrice(total)}</p>`,
  );
}

export function notFoundPage(ctx: PageContext, what: string): Html {
  return layout(ctx, 'Not found', html`<h1>Not found</h1><p>${what}</p><p><a href="/shop/">Back to the shop</a></p>`);
}

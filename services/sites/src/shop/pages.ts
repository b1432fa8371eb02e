// Browsing pages of the shop "Owrl Goods": home, category and search listings with their filter
// panel and sort links, and the product page with its size picker. Pure functions of the catalog
// and session state; small, semantic HTML (labels, buttons, links), no client framework.
import {
  browseShop,
  findCategory,
  formatPrice,
  hasShopFilters,
  shopDefaultVariant,
  shopFacets,
  shopPromoText,
  SHOP_RATING_STEPS,
  shopRatingLabel,
  type ShopProduct,
  type ShopSort,
  type ShopVariant,
} from '@owrl/tasks/shop';
import { html, raw, type Html } from '../html.js';
import { listingSearch, priceValue, type ListingQuery } from './filters.js';
import { cards, layout, noticeBlock, type PageContext } from './layout.js';

// Enter in the quantity field must not submit the form: the add_qty tasks are defined as
// write quantity, then click "Add to cart" (see SHOP_FAMILIES of @owrl/tasks/shop). Choosing a size
// shows that size's price, SKU and stock.
const PRODUCT_SCRIPT = `(function(){var q=document.getElementById('qty');
q.addEventListener('keydown',function(e){if(e.key==='Enter')e.preventDefault();});
document.querySelectorAll('input[name=size][type=radio]').forEach(function(r){r.addEventListener('change',function(){
if(!r.checked)return;document.querySelector('.product .price').textContent=r.dataset.price;
document.querySelector('.product .sku span').textContent=r.dataset.sku;
document.getElementById('stock').textContent=r.dataset.stock+' in stock';q.max=r.dataset.stock;});});})();`;

function searchForm(query: string): Html {
  return html`<form class="search" role="search" action="/shop/search" method="get">
<label for="q">Search products</label><input id="q" type="search" name="q" value="${query}" placeholder="e.g. ceramic mug">
<button type="submit">Search</button></form>`;
}

export function homePage(ctx: PageContext): Html {
  const featured = ctx.catalog.featured.flatMap((id) => {
    const p = ctx.catalog.byId.get(id);
    return p ? [{ product: p, variant: shopDefaultVariant(p), priceCents: p.priceCents }] : [];
  });
  const promo = ctx.catalog.promos[0];
  const strip = promo === undefined ? html`` : html`<p class="promo-strip">This week: code <strong>${promo.code}</strong> takes ${shopPromoText(promo)}.</p>`;
  return layout(
    ctx,
    'Home',
    html`<h1>Welcome to Owrl Goods</h1>${noticeBlock(ctx.state.notice)}${searchForm('')}${strip}
<h2>Featured</h2>${cards(featured)}`,
  );
}

const SORT_LINKS: readonly { sort: ShopSort; label: string }[] = [
  { sort: 'name', label: 'Name' },
  { sort: 'price_asc', label: 'Price: low to high' },
  { sort: 'price_desc', label: 'Price: high to low' },
  { sort: 'rating', label: 'Top rated' },
];

interface ListingScope {
  /** Path of the listing, e.g. `/shop/c/kitchen`. */
  path: string;
  /** The search query (search pages). */
  q?: string;
  products: readonly ShopProduct[];
}

function radio(name: string, id: string, value: string, label: string, checked: boolean): Html {
  return html`<span class="opt"><input type="radio" id="${id}" name="${name}" value="${value}"${checked ? raw(' checked') : ''}><label for="${id}">${label}</label></span>`;
}

function filterPanel(ctx: PageContext, scope: ListingScope, query: ListingQuery): Html {
  const f = query.filters;
  const facets = shopFacets(ctx.catalog, scope.products);
  const sizes = facets.sizes.map((s) => radio('size', `f-size-${s}`, s, s, f.size === s));
  const colours = facets.colors.map((c) => html`<option value="${c}"${f.color === c ? raw(' selected') : ''}>${c}</option>`);
  const ratings = SHOP_RATING_STEPS.map((r) => html`<option value="${r}"${f.minRating === r ? raw(' selected') : ''}>${shopRatingLabel(r)}</option>`);
  const brands = facets.brands.map(
    (b) =>
      html`<span class="opt"><input type="checkbox" id="f-brand-${b}" name="brand" value="${b}"${f.brands?.includes(b) ? raw(' checked') : ''}><label for="f-brand-${b}">${b}</label></span>`,
  );
  const waterproof = facets.waterproof
    ? html`<p class="field"><span class="opt"><input type="checkbox" id="f-wp" name="waterproof" value="1"${f.waterproof ? raw(' checked') : ''}><label for="f-wp">Waterproof only</label></span></p>`
    : html``;
  const clear = hasShopFilters(f) ? html`<a href="${scope.path}${listingSearch({}, { q: scope.q })}">Clear filters</a>` : html``;
  // Collapsed until some filter is set, as on a narrow layout: one "Filters" button instead of a
  // panel of controls on every listing.
  const open = hasShopFilters(f) || query.problems.length > 0;
  return html`<aside class="filters" aria-label="Filters"><details${open ? raw(' open') : ''}><summary>Filters</summary>
<form method="get" action="${scope.path}">${scope.q === undefined ? '' : html`<input type="hidden" name="q" value="${scope.q}">`}${
    query.sort === 'name' ? '' : html`<input type="hidden" name="sort" value="${query.sort}">`
  }
<fieldset><legend>Size</legend><div class="opts">${radio('size', 'f-size-any', '', 'Any size', f.size === undefined)}${sizes}</div></fieldset>
<p class="field"><label for="f-colour">Colour</label><select id="f-colour" name="colour"><option value="">Any colour</option>${colours}</select></p>
${waterproof}<p class="field"><label for="f-rating">Minimum rating</label><select id="f-rating" name="rating"><option value="">Any rating</option>${ratings}</select></p>
<fieldset><legend>Brand</legend><div class="opts">${brands}</div></fieldset>
<div class="prices"><p class="field"><label for="f-min">Min price</label><input id="f-min" name="min" inputmode="decimal" value="${priceValue(f.minPriceCents)}" placeholder="$0"></p>
<p class="field"><label for="f-max">Max price</label><input id="f-max" name="max" inputmode="decimal" value="${priceValue(f.maxPriceCents)}" placeholder="any"></p></div>
<p class="actions"><button type="submit">Apply filters</button>${clear}</p></form></details></aside>`;
}

/** Sort links, product count, cards and the filter panel of a category or search listing. */
function listing(ctx: PageContext, scope: ListingScope, query: ListingQuery): Html {
  const items = browseShop(scope.products, query.filters, query.sort);
  const links = SORT_LINKS.map(
    (l) =>
      html`<a href="${scope.path}${listingSearch(query.filters, { q: scope.q, sort: l.sort === 'name' ? undefined : l.sort })}"${
        l.sort === query.sort ? raw(' aria-current="true"') : ''
      }>${l.label}</a>`,
  );
  const size = query.filters.size;
  const count =
    items.length === scope.products.length ? `${items.length} products` : `Showing ${items.length} of ${scope.products.length} products`;
  const problems = query.problems.map((p) => html`<p class="notice error" role="alert">${p}</p>`);
  const found = items.length === 0 ? html`<p>No products match these filters.</p>` : cards(items, size);
  return html`<div class="listing"><section class="results" aria-label="Products">${problems}
<nav class="sort" aria-label="Sort"><span>Sort by</span>${links}</nav>
<p class="count">${count}${size === undefined ? '' : ` · prices for size ${size}`}</p>${found}</section>${filterPanel(ctx, scope, query)}</div>`;
}

/** Category listing; undefined when the category does not exist. */
export function categoryPage(ctx: PageContext, slug: string, query: ListingQuery): Html | undefined {
  const cat = findCategory(ctx.catalog, slug);
  if (cat === undefined) return undefined;
  const products = ctx.catalog.products.filter((p) => p.category === slug);
  return layout(ctx, cat.name, html`<h1>${cat.name}</h1>${noticeBlock(ctx.state.notice)}${listing(ctx, { path: `/shop/c/${slug}`, products }, query)}`, {
    current: slug,
  });
}

export function searchPage(ctx: PageContext, q: string, results: readonly ShopProduct[], query: ListingQuery): Html {
  const found =
    q.trim() === ''
      ? html`<p>Type a product name to search.</p>`
      : results.length === 0
        ? html`<p>No products match "${q}".</p>`
        : html`<p>${results.length} ${results.length === 1 ? 'result' : 'results'}</p>${listing(ctx, { path: '/shop/search', q, products: results }, query)}`;
  return layout(ctx, q.trim() === '' ? 'Search' : `Search: ${q}`, html`<h1>Search results</h1>${searchForm(q)}${found}`);
}

function sizePicker(p: ShopProduct, chosen: ShopVariant): Html {
  if (p.variants.length === 1) return html`<input type="hidden" name="size" value="${chosen.code}">`;
  const opts = p.variants.map((v) => {
    const id = `size-${v.code}`;
    const delta = v.priceCents - p.priceCents;
    const note = v.stock === 0 ? html` <small>sold out</small>` : delta > 0 ? html` <small>+${formatPrice(delta)}</small>` : html``;
    return html`<span class="opt"><input type="radio" id="${id}" name="size" value="${v.code}" data-price="${formatPrice(v.priceCents)}" data-sku="${v.sku}" data-stock="${v.stock}"${
      v.code === chosen.code ? raw(' checked') : ''
    }${v.stock === 0 ? raw(' disabled') : ''}><label for="${id}"${v.stock === 0 ? raw(' class="soldout"') : ''}>${v.code}</label>${note}</span>`;
  });
  return html`<fieldset class="sizes"><legend>Size</legend><div class="opts">${opts}</div></fieldset>`;
}

/** Product page; `size` preselects that size when it is in stock (else the default). */
export function productPage(ctx: PageContext, p: ShopProduct, size: string | null): Html {
  const cat = findCategory(ctx.catalog, p.category);
  const asked = p.variants.find((v) => v.code === size && v.stock > 0);
  const v = asked ?? shopDefaultVariant(p);
  return layout(
    ctx,
    p.name,
    html`${noticeBlock(ctx.state.notice)}<article class="product">
<div><p class="brandline">${p.brand}</p><h1>${p.name}</h1><p class="price">${formatPrice(v.priceCents)}</p><p class="sku">SKU: <span>${v.sku}</span></p>
<form class="buy" method="post" action="/shop/cart/add"><input type="hidden" name="id" value="${p.id}">${sizePicker(p, v)}
<label for="qty">Quantity</label><input id="qty" type="number" name="qty" value="1" min="1" max="${v.stock}">
<button type="submit">Add to cart</button></form></div>
<dl><dt>Brand</dt><dd>${p.brand}</dd><dt>Category</dt><dd>${cat?.name ?? p.category}</dd><dt>Color</dt><dd>${p.color}</dd><dt>Material</dt><dd>${p.material}</dd>
${p.variants.length === 1 ? html`<dt>Size</dt><dd>${v.code}</dd>` : ''}<dt>Waterproof</dt><dd>${p.waterproof ? 'Yes' : 'No'}</dd>
<dt>Rating</dt><dd>${p.rating.toFixed(1)} / 5 (${p.reviews} reviews)</dd><dt>Stock</dt><dd id="stock">${v.stock} in stock</dd></dl>
</article>`,
    { script: PRODUCT_SCRIPT, current: p.category },
  );
}

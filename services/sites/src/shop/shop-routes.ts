// Request handling of the shop under /shop/: browsing pages (home, category, search, product),
// cart, checkout and orders, and the form posts (cart, cookie banner, checkout), all against the
// caller's session state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { searchProducts, type ShopCatalog } from '@owrl/tasks/shop';
import { hereOf, readForm, safeDecode, sendHtml } from '../http-util.js';
import type { SessionState } from '../session-store.js';
import { cartPage, checkoutPage, orderPage, ordersPage } from './checkout-pages.js';
import { parseListingQuery } from './filters.js';
import { notFoundPage, type PageContext } from './layout.js';
import { categoryPage, homePage, productPage, searchPage } from './pages.js';
import { addToCart, answerCookies, checkout, removeFromCart } from './shop-actions.js';
import { shopData } from './shop-state.js';

const POSTS: Record<string, true> = { '/shop/cart/add': true, '/shop/cart/remove': true, '/shop/consent': true, '/shop/checkout': true };

/**
 * Handles a request whose path starts with /shop/. Returns false when the method is not one the
 * shop serves at that path (the caller answers 405).
 */
export async function handleShop(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  catalog: ShopCatalog,
  state: SessionState,
): Promise<boolean> {
  const path = url.pathname;
  const get = req.method === 'GET' || req.method === 'HEAD';
  // Reads and clears the one-shot notice, so a render shows it exactly once.
  const ctx = (): PageContext => {
    const shown = { ...state };
    state.notice = undefined;
    return { catalog, state: shown, shop: shopData(state), here: hereOf(url) };
  };
  const tail = (prefix: string): string => safeDecode(path.slice(prefix.length)).replace(/\/$/, '');

  if (req.method === 'POST' && POSTS[path] === true) {
    const form = await readForm(req);
    switch (path) {
      case '/shop/cart/add':
        if (!addToCart(res, catalog, state, form)) sendHtml(res, 404, notFoundPage(ctx(), `There is no product "${form.get('id') ?? ''}".`));
        return true;
      case '/shop/cart/remove':
        removeFromCart(res, catalog, state, form);
        return true;
      case '/shop/consent':
        answerCookies(res, state, form);
        return true;
      default:
        checkout(res, catalog, state, form);
        return true;
    }
  }
  if (!get) return false;
  if (path === '/shop/') {
    sendHtml(res, 200, homePage(ctx()));
  } else if (path.startsWith('/shop/c/')) {
    const slug = tail('/shop/c/');
    const page = categoryPage(ctx(), slug, parseListingQuery(url, catalog));
    sendHtml(res, page ? 200 : 404, page ?? notFoundPage(ctx(), `There is no category "${slug}".`));
  } else if (path === '/shop/search') {
    const q = (url.searchParams.get('q') ?? '').slice(0, 200);
    sendHtml(res, 200, searchPage(ctx(), q, searchProducts(catalog, q), parseListingQuery(url, catalog)));
  } else if (path.startsWith('/shop/p/')) {
    const id = tail('/shop/p/');
    const p = catalog.byId.get(id);
    sendHtml(res, p ? 200 : 404, p ? productPage(ctx(), p, url.searchParams.get('size')) : notFoundPage(ctx(), `There is no product "${id}".`));
  } else if (path === '/shop/cart') {
    sendHtml(res, 200, cartPage(ctx()));
  } else if (path === '/shop/checkout') {
    sendHtml(res, 200, checkoutPage(ctx()));
  } else if (path === '/shop/orders') {
    sendHtml(res, 200, ordersPage(ctx()));
  } else if (path.startsWith('/shop/orders/')) {
    const number = tail('/shop/orders/');
    const order = shopData(state).orders.find((o) => o.number === number);
    sendHtml(res, order ? 200 : 404, order ? orderPage(ctx(), order) : notFoundPage(ctx(), `There is no order "${number}" in this session.`));
  } else if (POSTS[path] === true) {
    return false;
  } else {
    sendHtml(res, 404, notFoundPage(ctx(), `There is no page ${path}.`));
  }
  return true;
}

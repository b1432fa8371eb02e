// Request handling of the shop under /shop/: pages, add to cart and remove from cart (form POST,
// then 303 redirect with a one-shot notice), all against the caller's session state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { searchProducts, SHOP_SORTS, type ShopCatalog, type ShopSort } from '@owrl/tasks';
import { readForm, redirect, sendHtml } from '../http-util.js';
import type { SessionState } from '../session-store.js';
import { cartPage, categoryPage, homePage, notFoundPage, productPage, searchPage } from './pages.js';

/** Most units of one product a cart line may hold. */
export const MAX_LINE_QTY = 99;

function parseSort(v: string | null): ShopSort {
  return v !== null && (SHOP_SORTS as readonly string[]).includes(v) ? (v as ShopSort) : 'name';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Reads and clears the one-shot notice, so a render shows it exactly once. */
function takeNotice(state: SessionState): SessionState {
  const shown = { ...state };
  state.notice = undefined;
  return shown;
}

/**
 * Handles a request whose path starts with /shop. Returns false when the method is not one the
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
  const ctx = () => ({ catalog, state: takeNotice(state) });

  if (path === '/shop') {
    redirect(res, 301, `/shop/${url.search}`);
    return true;
  }
  if (path === '/shop/' && get) {
    sendHtml(res, 200, homePage(ctx()));
    return true;
  }
  if (path.startsWith('/shop/c/') && get) {
    const slug = safeDecode(path.slice('/shop/c/'.length)).replace(/\/$/, '');
    const page = categoryPage(ctx(), slug, parseSort(url.searchParams.get('sort')));
    sendHtml(res, page ? 200 : 404, page ?? notFoundPage(ctx(), `There is no category "${slug}".`));
    return true;
  }
  if (path === '/shop/search' && get) {
    const q = (url.searchParams.get('q') ?? '').slice(0, 200);
    sendHtml(res, 200, searchPage(ctx(), q, searchProducts(catalog, q)));
    return true;
  }
  if (path.startsWith('/shop/p/') && get) {
    const id = safeDecode(path.slice('/shop/p/'.length)).replace(/\/$/, '');
    const p = catalog.byId.get(id);
    sendHtml(res, p ? 200 : 404, p ? productPage(ctx(), p) : notFoundPage(ctx(), `There is no product "${id}".`));
    return true;
  }
  if (path === '/shop/cart' && get) {
    sendHtml(res, 200, cartPage(ctx()));
    return true;
  }
  if (path === '/shop/cart/add' && req.method === 'POST') {
    const form = await readForm(req);
    const id = form.get('id') ?? '';
    const p = catalog.byId.get(id);
    if (p === undefined) {
      sendHtml(res, 404, notFoundPage(ctx(), `There is no product "${id}".`));
      return true;
    }
    const rawQty = (form.get('qty') ?? '1').trim();
    const qty = /^\d+$/.test(rawQty) ? Number(rawQty) : NaN;
    const have = state.cart.get(id) ?? 0;
    const limit = Math.min(p.stock, MAX_LINE_QTY);
    if (!Number.isInteger(qty) || qty < 1) {
      state.notice = { kind: 'error', text: `Quantity "${rawQty}" is not valid: enter a whole number from 1 to ${limit}.` };
    } else if (have + qty > limit) {
      state.notice = { kind: 'error', text: `Only ${limit} of ${p.name} can be in the cart (you have ${have}).` };
    } else {
      state.cart.set(id, have + qty);
      state.notice = { kind: 'ok', text: `Added to cart: ${qty} × ${p.name}` };
    }
    redirect(res, 303, `/shop/p/${p.id}`);
    return true;
  }
  if (path === '/shop/cart/remove' && req.method === 'POST') {
    const form = await readForm(req);
    const id = form.get('id') ?? '';
    const p = catalog.byId.get(id);
    if (p !== undefined && state.cart.delete(id)) state.notice = { kind: 'ok', text: `Removed from cart: ${p.name}` };
    redirect(res, 303, '/shop/cart');
    return true;
  }
  const postOnly = path === '/shop/cart/add' || path === '/shop/cart/remove';
  if (postOnly || !get) return false;
  sendHtml(res, 404, notFoundPage(ctx(), `There is no page ${path}.`));
  return true;
}
